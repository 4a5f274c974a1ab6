// One door per ledger write: every part of the ledger that writes a status, a flag, an effect's
// failure or outcome emits its events itself, after its commit; the row helpers that could write
// without them are not reachable from the module's entry, and the service has no second door.
import * as moduleEntry from "../../index"
import PayinModuleService from "../../service"
import type { Db } from "../../db"
import { PAYIN_EVENTS, type PayinEvent } from "../events"
import { Ledger } from "../ledger"
import { statusColumns } from "../rows"
import type { LedgerRow } from "../types"

type Statement = { sql: string; bindings: unknown[] }

/** An in-memory stand-in for the module's knex connection: one pay-in row, enough SQL for the ledger's writes. */
function fakeDb(initial: Partial<LedgerRow>) {
  const row: Record<string, any> = {
    id: "payintx_1",
    provider_id: "pp_payin_default",
    service_id: "svc-1",
    session_id: "payses_1",
    status: "active",
    amount: "100.00",
    currency_code: "rub",
    fiat_amount: "100.00",
    assigned_amount: "100.00",
    flags: null,
    paid_at: null,
    captured_at: null,
    store_canceled_at: null,
    effect_pending: null,
    effect_attempts: 0,
    effect_fence: 1,
    ...initial,
  }
  const statements: Statement[] = []
  const state = { open: 0, commits: 0, hotPath: null as Record<string, unknown> | null }
  const db: Db = {
    async raw(sql: string, bindings: unknown[] = []) {
      statements.push({ sql, bindings })
      if (/^with was as/.test(sql.trim())) {
        // an effect's outcome: written only while the runner's token is the row's
        const fence = bindings[bindings.length - 1]
        if (fence != null && Number(fence) !== Number(row.effect_fence)) return { rows: [] }
        return { rows: [{ ...row, was_store_canceled_at: row.store_canceled_at ?? null }] }
      }
      if (/for update/.test(sql) || /^select \* from payin_transaction where id/.test(sql.trim())) return { rows: [{ ...row }] }
      if (/^with moved as/.test(sql.trim())) {
        if (!state.hotPath) return { rows: [] }
        Object.assign(row, state.hotPath)
        return { rows: [{ ...row, from_status: "creating" }] }
      }
      if (/set flags =/.test(sql)) {
        const flag = bindings[0] as string
        if (row.flags?.[flag]) return { rows: [] }
        row.flags = { ...(row.flags ?? {}), [flag]: JSON.parse(bindings[1] as string) }
        return { rows: [{ id: row.id }] }
      }
      if (/^update payin_transaction set status = \?/.test(sql.trim())) {
        row.status = bindings[0]
        if (bindings[0] === "closed") row.paid_at ??= new Date()
        row.effect_pending = bindings[5] ?? row.effect_pending
        return { rows: [{ ...row }] }
      }
      if (/^update payin_transaction set effect_attempts = \?/.test(sql.trim())) {
        row.effect_attempts = bindings[0]
        return { rows: [] }
      }
      if (/^insert into payin_transaction/.test(sql.trim())) {
        return { rows: [{ ...row, id: "payintx_unknown", flags: JSON.parse(bindings[5] as string) }] }
      }
      if (/^insert into payin_notification/.test(sql.trim())) return { rows: [{ id: "payinnt_1" }] }
      // any other write that answers its row
      if (/returning \*\s*$/.test(sql.trim())) return { rows: [{ ...row }] }
      return { rows: [] }
    },
    async transaction<T>(work: (trx: Db) => Promise<T>): Promise<T> {
      state.open++
      try {
        return await work(db)
      } finally {
        state.open--
        state.commits++
      }
    },
  }
  return { db, row, statements, state }
}

function ledgerOn(fake: ReturnType<typeof fakeDb>, limit = 5) {
  const emitted: PayinEvent[] = []
  const ledger = new Ledger(() => fake.db, {
    emit: async (events) => {
      // after the commit that made them, never inside it
      expect(fake.state.open).toBe(0)
      emitted.push(...events)
    },
    effectRetryLimit: async () => limit,
    notifications: { due: async (...args: unknown[]) => (fake.db.raw("insert into payin_notification", args), {}) } as any,
  })
  return { ledger, emitted, names: () => emitted.map((e) => e.name) }
}

describe("one door per ledger write", () => {
  it("a flag written through the ledger emits payin.payment_flagged once, after its commit", async () => {
    const fake = fakeDb({})
    const { ledger, names, emitted } = ledgerOn(fake)
    expect(await ledger.flag("payintx_1", "late_payment", { reason: "test" })).toBe(true)
    expect(names()).toEqual([PAYIN_EVENTS.PAYMENT_FLAGGED])
    expect(emitted[0].data).toMatchObject({ id: "payintx_1", flag: "late_payment" })
    expect(await ledger.flag("payintx_1", "late_payment", { reason: "again" })).toBe(false)
    expect(names()).toHaveLength(1)
  })

  it("a status recorded through the ledger emits its dispute events and the flags it raised", async () => {
    const fake = fakeDb({ status: "closed", paid_at: new Date() })
    const { ledger, names } = ledgerOn(fake)
    const result = await ledger.recordStatus("payintx_1", { id: "svc-1", status: "dispute", fiatAmount: "100.00", fiatCurrency: "RUB" } as any, "webhook")
    expect(result.transition.changed).toBe(true)
    expect(names()).toEqual([PAYIN_EVENTS.DISPUTE_OPENED, PAYIN_EVENTS.PAYMENT_FLAGGED])
  })

  it("the creation answer is the same status write as a move (paid_at, the pending effect) and emits", async () => {
    const closed = fakeDb({ status: "creating", service_id: null, assigned_amount: null })
    const { ledger, names } = ledgerOn(closed)
    await ledger.recordCreated("payintx_1", { id: "svc-1", status: "closed", fiatAmount: "90.00", fiatCurrency: "RUB" } as any, new Date())
    // `closed` compares what arrived: the general path, in one commit, with the capture pending
    expect(closed.row).toMatchObject({ status: "closed", effect_pending: "capture" })
    expect(closed.row.paid_at).toBeTruthy()
    expect(closed.state.commits).toBe(1)
    expect(names()).toEqual([PAYIN_EVENTS.PAYMENT_FLAGGED]) // underpayment

    const disputed = fakeDb({ status: "creating", service_id: null })
    disputed.state.hotPath = { status: "dispute" }
    const hot = ledgerOn(disputed)
    await hot.ledger.recordCreated("payintx_1", { id: "svc-1", status: "dispute", fiatAmount: "100.00", fiatCurrency: "RUB" } as any, new Date())
    const statement = disputed.statements.find((s) => /^with moved as/.test(s.sql.trim()))!
    expect(statement.sql).toContain(statusColumns("dispute", null).sql)
    expect(hot.names()).toEqual([PAYIN_EVENTS.DISPUTE_OPENED])

    const canceled = fakeDb({ status: "creating", service_id: null })
    canceled.state.hotPath = { status: "canceled" }
    await ledgerOn(canceled).ledger.recordCreated("payintx_1", { id: "svc-1", status: "canceled", fiatAmount: "100.00", fiatCurrency: "RUB" } as any, new Date())
    const hotCancel = canceled.statements.find((s) => /^with moved as/.test(s.sql.trim()))!
    // the effect a `canceled` answer asks for is written with it
    expect(hotCancel.bindings.slice(0, statusColumns("canceled", "cancel_order").bindings.length)).toEqual(statusColumns("canceled", "cancel_order").bindings)
  })

  it("an effect that fails past the retry limit is flagged with its event; before it, nothing is emitted", async () => {
    const fake = fakeDb({ status: "closed", effect_pending: "capture", effect_attempts: 3 })
    const { ledger, names } = ledgerOn(fake, 5)
    await ledger.effects.failed("payintx_1", "capture", "Medusa said no", 1)
    expect(names()).toEqual([])
    await ledger.effects.failed("payintx_1", "capture", "Medusa said no", 1)
    expect(names()).toEqual([PAYIN_EVENTS.PAYMENT_FLAGGED])
  })

  it("an effect's outcome is one commit with its flag, notes, owed notification and events", async () => {
    const fake = fakeDb({ status: "closed", effect_pending: "capture", paid_at: new Date() })
    const { ledger, names } = ledgerOn(fake)
    const { flagged } = await ledger.effects.settle(
      "payintx_1",
      "capture",
      {
        ended: "order canceled before the payment arrived",
        flag: { flag: "late_payment", details: { reason: "paid after the order was canceled" } },
        note: "not captured: late payment",
        order_id: "order_1",
      },
      1
    )
    expect(flagged).toBe(true)
    expect(fake.state.commits).toBe(1)
    expect(names()).toEqual([PAYIN_EVENTS.PAYMENT_FLAGGED])
    const notes = fake.statements.filter((s) => /insert into payin_status_change/.test(s.sql)).map((s) => s.bindings[4])
    expect(notes).toEqual(["order canceled before the payment arrived", "flag: late_payment", "not captured: late payment"])

    const captured = fakeDb({ status: "closed", effect_pending: "capture", paid_at: new Date() })
    const done = ledgerOn(captured)
    await done.ledger.effects.settle("payintx_1", "capture", {
      captured: true,
      order_id: "order_1",
      announce: { notice: { kind: "captured", order_id: "order_1" }, notify: true },
    })
    expect(captured.state.commits).toBe(1)
    expect(captured.statements.some((s) => /insert into payin_notification/.test(s.sql))).toBe(true)
    expect(done.names()).toEqual([PAYIN_EVENTS.CAPTURED])
  })

  it("a stale runner's outcome is refused and emits nothing", async () => {
    const fake = fakeDb({ status: "closed", effect_pending: "capture", effect_fence: 2 })
    const { ledger, names } = ledgerOn(fake)
    await expect(ledger.effects.settle("payintx_1", "capture", { captured: true }, 1)).rejects.toThrow(/claimed by another runner/)
    expect(names()).toEqual([])
  })

  it("a pay-in unknown to the store is created flagged, with its event", async () => {
    const fake = fakeDb({})
    const { ledger, names, emitted } = ledgerOn(fake)
    const row = await ledger.createUnknown("pp_payin_default", { id: "svc-9", status: "closed", fiatAmount: "5.00", fiatCurrency: "RUB" } as any)
    expect(row.id).toBe("payintx_unknown")
    expect(names()).toEqual([PAYIN_EVENTS.PAYMENT_FLAGGED])
    expect(emitted[0].data).toMatchObject({ flag: "unknown_payin" })
  })

  it("there is no ledger without an event sink, no second door on the service, and no row helper on the module's entry", () => {
    expect(() => new Ledger(() => fakeDb({}).db, undefined as any)).toThrow(/event sink/)
    for (const door of ["flag", "recordStatus", "effectFailed", "emit"]) {
      expect(door in PayinModuleService.prototype).toBe(false)
    }
    expect(Object.keys(moduleEntry).sort()).toEqual(["PAYIN_MODULE", "PayinModuleService", "default"])
  })
})
