// The provider's session hooks against an in-memory ledger: the reuse of a live pay-in, the cap
// on creations per payment collection, and the errors the shopper gets. The SQL of the ledger is
// exercised end to end by integration-tests/http/store-abuse.spec.ts.
import { MedusaError } from "@medusajs/framework/utils"
import { PAYMENT_CRADLE } from "../../../medusa"
import type { Transaction } from "../../../client/schemas"
import { Ledger } from "../../../modules/payin/ledger/ledger"
import { PayinProviderService } from "../service"
import { MAX_CREATIONS_PER_COLLECTION } from "../session-reuse"

const KEY = "unit-key-0123456789abcdef"
const COLLECTION = "pay_col_1"

type Row = Record<string, any>

function transaction(id: string, externalId: string): Transaction {
  return {
    id,
    fiatAmount: "1790.00",
    cryptoAmount: "1",
    merchantFee: "1",
    currencyRate: "1",
    type: "pay-in",
    status: "active",
    bank: "sberbank",
    fiatCurrency: "RUB",
    cryptoCurrency: "usdt",
    cryptoNetwork: "trc20",
    payoutInvoicesUrl: [],
    disputeMerchantCheckUrl: null,
    disputeTraderCheckUrl: null,
    disputeMerchantFiatAmount: "0.00",
    disputeTraderFiatAmount: "0.00",
    requisite: { id: "r1", bank: "sberbank", ownerName: "Ivan P.", sbpNumber: null, requisites: "2200000000000000", fiatCurrency: "RUB" },
    extra: { externalTransactionId: externalId },
    createdAt: new Date().toISOString(),
  } as unknown as Transaction
}

function setUp({ creationsBefore = 0, openFails = false } = {}) {
  const rows = new Map<string, Row>()
  const history: string[] = []
  const created: string[] = []
  const logged: string[] = []
  let creations = creationsBefore
  let n = 0
  const db = {
    raw: async (sql: string, b: any[] = []) => {
      if (/for update/.test(sql)) return { rows: rows.has(b[0]) ? [{ ...rows.get(b[0]) }] : [] }
      if (/^update payin_transaction set session_id/.test(sql)) {
        Object.assign(rows.get(b[1])!, { session_id: b[0], session_deleted_at: null })
        return { rows: [{ ...rows.get(b[1]) }] }
      }
      if (/^update payin_transaction set session_deleted_at/.test(sql)) {
        rows.get(b[0])!.session_deleted_at = new Date()
        return { rows: [] }
      }
      if (/insert into payin_status_change/.test(sql)) {
        history.push(String(b[4]))
        return { rows: [] }
      }
      throw new Error(`unexpected SQL ${sql}`)
    },
    transaction: async (work: (trx: unknown) => Promise<unknown>) => work(db),
  }
  // the ledger's own writes of the reuse, on the in-memory rows
  const ledger = new Ledger(() => db as any, { emit: async () => undefined } as any)
  const payin = {
    settings: {
      providerOptions: async () => null,
    },
    clients: {
      withClient: async (_id: string, call: (client: unknown) => Promise<Transaction>) =>
        call({
          createPayIn: async (_request: unknown, externalId: string) => {
            created.push(externalId)
            return transaction(`svc-${created.length}`, externalId)
          },
        }),
    },
    ledger: {
      ofCollections: async () => [...rows.values()].reverse(),
      open: async (fields: Row) => {
        if (openFails) throw new Error(`insert into "payin_transaction" violates constraint "IDX_x" (${KEY})`)
        const id = `payintx_${++n}`
        creations++
        rows.set(id, { id, status: "creating", flags: null, flag_kinds: null, ...fields })
        return { id, status: "creating" }
      },
      recordCreated: async (id: string, tx: Transaction, expiresAt: Date) => {
        Object.assign(rows.get(id)!, { status: "active", service_id: tx.id, requisite: tx.requisite, service_data: tx, expires_at: expiresAt, bank: tx.bank })
        return null
      },
      recordCreationFailure: async (id: string, message: string) => {
        Object.assign(rows.get(id)!, { status: "failed", last_error: message })
      },
      markSessionDeleted: async (id: string) => {
        rows.get(id)!.session_deleted_at = new Date()
      },
      reattachSession: ledger.reattachSession.bind(ledger),
      markSessionDeletedIfCurrent: ledger.markSessionDeletedIfCurrent.bind(ledger),
      flag: async () => true,
      get: async (id: string) => rows.get(id) ?? null,
      findBy: async (column: string, value: string) => [...rows.values()].find((r) => r[column] === value) ?? null,
    },
    queries: { creationsSince: async () => creations },
  }
  const cradle = {
    payin,
    logger: { info: (m: string) => logged.push(m), warn: (m: string) => logged.push(m), error: (m: string) => logged.push(m) },
    [PAYMENT_CRADLE.sessions]: { retrieve: async (id: string) => ({ id, amount: 1790, currency_code: "rub", payment_collection_id: COLLECTION }) },
    __pg_connection__: db,
  }
  const provider = new PayinProviderService(cradle, { id: "default", apiKey: KEY, baseUrl: "https://service.example" })
  const initiate = (sessionId: string, data: Record<string, unknown> = {}) =>
    provider.initiatePayment({ amount: 1790, currency_code: "rub", data: { ...data, session_id: sessionId } })
  return { provider, rows, history, created, logged, initiate }
}

describe("initiatePayment: the same payment asked for again", () => {
  it("shows the live pay-in again, re-attached to the new session, without asking the service", async () => {
    const t = setUp()
    const first = await t.initiate("payses_1")
    const again = await t.initiate("payses_2")
    expect(t.created).toEqual(["payses_1"])
    expect(again.id).toBe(first.id)
    expect(again.data).toMatchObject({
      payin_id: first.data!.payin_id,
      payin_ledger_id: first.data!.payin_ledger_id,
      requisite: first.data!.requisite,
      expires_at: first.data!.expires_at,
      session_id: "payses_2",
    })
    const [row] = [...t.rows.values()]
    expect(row.session_id).toBe("payses_2")
    expect(t.history).toEqual(["reused for payment session payses_2 (was payses_1)"])
  })

  it("Medusa's deletion of the old session, before or after the re-attachment, leaves the pay-in with the new session", async () => {
    // deletion first (Medusa runs both in parallel)
    const t = setUp()
    const first = await t.initiate("payses_1")
    await t.provider.deletePayment({ data: { ...first.data } })
    expect([...t.rows.values()][0].session_deleted_at).toBeTruthy()
    await t.initiate("payses_2")
    expect([...t.rows.values()][0]).toMatchObject({ session_id: "payses_2", session_deleted_at: null })

    // re-attachment first
    const u = setUp()
    const one = await u.initiate("payses_1")
    await u.initiate("payses_2")
    await u.provider.deletePayment({ data: { ...one.data } })
    expect([...u.rows.values()][0]).toMatchObject({ session_id: "payses_2", session_deleted_at: null })
  })

  it("creates another pay-in for another method the shopper chose", async () => {
    const t = setUp()
    await t.initiate("payses_1", { method: "card" })
    await t.initiate("payses_2", { method: "qr" })
    await t.initiate("payses_3", { method: "card" })
    expect(t.created).toEqual(["payses_1", "payses_2"])
  })
})

describe("initiatePayment: a copy of the provider's own data (Medusa re-creating a deleted session)", () => {
  /** A pay-in whose session Medusa deleted, and that session's data as Medusa stored it. */
  const deleted = async () => {
    const t = setUp()
    const first = await t.initiate("payses_1", { method: "card" })
    await t.provider.deletePayment({ data: { ...first.data } })
    const { session_id: _, ...copy } = { method: "card", ...first.data } as Record<string, unknown>
    return { ...t, first, copy, row: [...t.rows.values()][0] }
  }

  it("gets its live pay-in back, nothing asked of the service", async () => {
    const t = await deleted()
    const again = await t.initiate("payses_2", t.copy)
    expect(again.id).toBe(t.first.id)
    expect(t.row).toMatchObject({ session_id: "payses_2", session_deleted_at: null })
    expect(t.created).toEqual(["payses_1"])
  })

  it("is checked as any data: a bad URL, locale or unknown key is refused and the pay-in stays where it was", async () => {
    const t = await deleted()
    for (const bad of [{ success_url: "javascript:alert(1)" }, { failure_url: "https://evil.example" }, { locale: "klingon" }, { junk: "x" }]) {
      const error = (await t.initiate("payses_2", { ...t.copy, ...bad }).catch((e) => e)) as MedusaError
      expect([bad, error.code]).toEqual([bad, "payin_invalid_data"])
    }
    expect(t.row).toMatchObject({ session_id: "payses_1", session_deleted_at: expect.any(Date) })
  })

  it("of a pay-in that expired, the store ended, or whose window nearly ended: refused, no pay-in opened", async () => {
    for (const patch of [{ status: "canceled" }, { store_canceled_at: new Date() }, { expires_at: new Date(Date.now() + 30_000) }]) {
      const t = await deleted()
      Object.assign(t.row, patch)
      const error = (await t.initiate("payses_2", t.copy).catch((e) => e)) as MedusaError
      expect([patch, error.code]).toEqual([patch, "payin_invalid_data"])
      expect(error.message).toMatch(/copied from an earlier session/)
      expect(t.row.session_id).toBe("payses_1")
      expect(t.created).toEqual(["payses_1"])
      expect(t.rows.size).toBe(1)
    }
  })
})

describe("initiatePayment: at most MAX_CREATIONS_PER_COLLECTION pay-ins per collection in the window", () => {
  it("refuses the next one with payin_too_many_attempts, without writing or asking anything", async () => {
    const t = setUp({ creationsBefore: MAX_CREATIONS_PER_COLLECTION })
    const error = (await t.initiate("payses_9").catch((e) => e)) as MedusaError
    expect(error.code).toBe("payin_too_many_attempts")
    expect(error.message).toMatch(/Too many payment attempts/)
    expect(t.created).toEqual([])
    expect(t.rows.size).toBe(0)
  })

  it("refuses a request whose row makes one too many (a concurrent burst), recorded failed, nothing asked", async () => {
    const t = setUp({ creationsBefore: MAX_CREATIONS_PER_COLLECTION - 1 })
    // another request of the burst wrote its row between this one's two counts
    const payin = (t.provider as any).cradle_.payin
    const open = payin.ledger.open
    payin.ledger.open = async (fields: Record<string, unknown>) => {
      const opened = await open(fields)
      payin.queries.creationsSince = async () => MAX_CREATIONS_PER_COLLECTION + 1
      return opened
    }
    const error = (await t.initiate("payses_9").catch((e) => e)) as MedusaError
    expect(error.code).toBe("payin_too_many_attempts")
    expect(t.created).toEqual([])
    expect([...t.rows.values()][0]).toMatchObject({ status: "failed", last_error: expect.stringMatching(/^not sent: /) })
  })

  it("still shows the live pay-in again once the cap is reached", async () => {
    const t = setUp()
    await t.initiate("payses_1")
    ;(t.provider as any).cradle_.payin.queries.creationsSince = async () => 99
    const again = await t.initiate("payses_2")
    expect(again.data).toMatchObject({ session_id: "payses_2" })
    expect(t.created).toEqual(["payses_1"])
  })
})

describe("initiatePayment: errors", () => {
  it("tells the shopper fixed text when the ledger cannot record the pay-in; the log has the detail, not the key", async () => {
    const t = setUp({ openFails: true })
    const error = (await t.initiate("payses_1").catch((e) => e)) as MedusaError
    expect(error.code).toBe("payin_unavailable")
    expect(error.message).not.toMatch(/payin_transaction|constraint|IDX_/)
    expect(t.created).toEqual([])
    expect(t.logged.join("\n")).toMatch(/violates constraint/)
    expect(t.logged.join("\n")).not.toContain(KEY)
  })
})
