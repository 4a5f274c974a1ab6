// Medusa effects (capture of a paid pay-in, cancel of an expired one's order) on a real Medusa,
// PostgreSQL (locking-postgres) and the sandbox over HTTP: retried with capped backoff and still
// after the flag; fenced, so a run that outlived its lock never runs beside another; two pay-ins
// racing for one session; the expired notice reading the order's status from Medusa.
// Failures are real: a Medusa table blocked with a CHECK (false) constraint, a capture or cancel
// held at a fault point of the test app (PAYIN_TEST_PAUSE_FILE, integration-tests/support/pause-file.ts).
import { randomUUID } from "crypto"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "fs"
import os from "os"
import path from "path"
import { Modules } from "@medusajs/framework/utils"
import { applyPendingEffect } from "../../src/money-path/apply"
import { reconcilePayins } from "../../src/money-path/reconcile"
import type { RunningSandbox } from "../../src/sandbox"
import { PAYIN_EVENTS, storeSpec } from "../support/harness"
import { eventually } from "../support/medusa-process"
import { control } from "../support/sandbox"
import { Storefront } from "../support/storefront"

jest.setTimeout(240_000)

const KEY = "effect-retries-key-0123456789"
const work = mkdtempSync(path.join(os.tmpdir(), "payin-effects-"))
const pauseFile = path.join(work, "pause")
process.env.PAYIN_TEST_PAUSE_FILE = pauseFile
const resume = () => rmSync(pauseFile, { force: true })
afterAll(() => rmSync(work, { recursive: true, force: true }))

storeSpec({ key: KEY, events: true, beforeReset: resume }, (h) => {
  const { api, getContainer, events } = h
  let sandbox: RunningSandbox, shop: Storefront, admin: { headers: Record<string, string> }
  beforeEach(() => void ({ sandbox, shop, admin } = h))

  const sql = async (text: string, bindings: unknown[] = []) => (await h.sql(text, bindings)).rows as any[]
  /** The ledger row as stored, with the seconds until its effect is due again. */
  const ledgerRow = async (id: string) =>
    (await sql(`select *, extract(epoch from next_effect_at - now())::float as due_in from payin_transaction where id = ?`, [id]))[0]
  const order = (orderId: string, fields?: string) => h.order(orderId, fields)
  /** What Medusa booked for a session: its payments and the captures of each. */
  const paymentsOf = (sessionId: string) => h.paymentsOf(sessionId, ["id", "amount", "captured_at", "captures.amount"])
  const capturedTotal = (payments: any[]) => payments.flatMap((p) => p.captures ?? []).reduce((sum, c) => sum + Number(c.amount), 0)
  /** Posts a callback and waits for its booking; `booked`: whether its Medusa effect is done or still pending. */
  const postWebhook = async (body: string) => {
    const answer = await h.webhookApplied(body)
    return { ...answer, booked: answer.applied.effectPending ? "effect pending" : answer.applied.state }
  }
  const pluginSettings = async (patch: Record<string, unknown>) => expect((await api.post("/admin/payin/settings", patch, admin)).status).toBe(200)
  /** A placed order waiting for its payment, with its ledger row's id. */
  const placedOrder = async () => {
    const placed = await h.placedOrder()
    const row = await h.ledger.row({ session_id: placed.session.id })
    return { ...placed, ledgerId: row.id as string }
  }
  /** Makes Medusa fail to write `table` (a real database error inside its workflows) while `fn` runs. */
  const blocking = async <T>(table: string, fn: () => Promise<T>, check = "false"): Promise<T> => {
    await sql(`alter table "${table}" add constraint payin_test_block check (${check}) not valid`)
    try {
      return await fn()
    } finally {
      await sql(`alter table "${table}" drop constraint payin_test_block`)
    }
  }
  /** A paid pay-in whose capture failed once (the `payment` table blocked), its order waiting. */
  const captureFailedOnce = async () => {
    const placed = await placedOrder()
    await blocking("payment", async () => {
      await control(sandbox, "POST", `/_sandbox/transactions/${placed.payin.id}/pay`)
      await h.deliver()
    })
    expect(await ledgerRow(placed.ledgerId)).toMatchObject({ status: "closed", effect_pending: "capture", effect_attempts: 1 })
    expect((await order(placed.orderId)).payment_status).toBe("awaiting")
    return placed
  }
  /** The pauses reached so far ("<point> <id>" lines of the pause hook's log). */
  const pauses = () => (existsSync(`${pauseFile}.log`) ? readFileSync(`${pauseFile}.log`, "utf8").split("\n").filter(Boolean) : [])
  const pausedAt = (entry: string, times = 1) =>
    eventually(`paused at ${entry} ${times}×`, async () => pauses().filter((p) => p === entry).length >= times, 60_000, 100)
  const pause = (words: string) => {
    rmSync(`${pauseFile}.log`, { force: true })
    writeFileSync(pauseFile, words)
  }

  beforeAll(async () => {
    // the scheduled reconciliation job must not retry effects behind the tests' backs: hold its
    // lock for the whole spec (the job, ticking every 5 s, may hold it already: take it over)
    const locking = getContainer().resolve(Modules.LOCKING)
    for (let attempt = 0; ; attempt++) {
      await sql("delete from locking where id = 'payin:reconcile' and owner_id <> 'effect-retries-spec'")
      const taken = await locking.acquire("payin:reconcile", { ownerId: "effect-retries-spec", expire: 3600 }).then(
        () => true,
        () => false
      )
      if (taken) break
      if (attempt > 5) throw new Error("could not hold the reconciliation job's lock")
    }
  })

  afterEach(() => resume())

  describe("retries with backoff", () => {
    it("a failing capture waits 30 s, 1 min … between attempts, is flagged after effectRetryLimit, and is still retried until captured", async () => {
      await pluginSettings({ effectRetryLimit: 2 })
      try {
        const { ledgerId, orderId, session, cartId, payin: tx } = await placedOrder()
        // the capture keeps failing: the webhook's attempt, then the job's
        await blocking("payment", async () => {
          await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/pay`)
          await h.deliver()
          const first = await ledgerRow(ledgerId)
          expect(first).toMatchObject({ status: "closed", effect_pending: "capture", effect_attempts: 1 })
          // due again in 30 s ± 25 %, written with the failure
          expect(first.due_in).toBeGreaterThan(15)
          expect(first.due_in).toBeLessThanOrEqual(38)
          // not retried before it is due, by the job or by the shopper's polls
          expect(await reconcilePayins(getContainer(), { olderThanSeconds: 0 })).toMatchObject({ effectsRetried: 0 })
          for (let i = 0; i < 3; i++) {
            expect((await api.get(`/store/payin/status?cart_id=${cartId}`, shop.headers)).data.payin).toMatchObject({ state: "paid", final: false })
          }
          expect(await ledgerRow(ledgerId)).toMatchObject({ effect_attempts: 1 })

          // its time comes (as if 30 s had passed): the job retries, fails again, backs off longer and flags it
          await sql("update payin_transaction set next_effect_at = now() - interval '1 second' where id = ?", [ledgerId])
          expect(await reconcilePayins(getContainer(), { olderThanSeconds: 0 })).toMatchObject({ effectsRetried: 1, effectsDone: 0 })
          const second = await ledgerRow(ledgerId)
          expect(second).toMatchObject({ effect_pending: "capture", effect_attempts: 2 })
          expect(second.flags.capture_failed).toMatchObject({ attempts: 2 })
          expect(second.due_in).toBeGreaterThan(35)
          expect(second.due_in).toBeLessThanOrEqual(75)
          expect(events.filter((e) => e.name === PAYIN_EVENTS.PAYMENT_FLAGGED).map((e) => e.data.flag)).toEqual(["capture_failed"])
        })
        expect((await order(orderId)).payment_status).toBe("awaiting")

        // Medusa is back; past the limit, the job still retries it once it is due
        expect(await reconcilePayins(getContainer(), { olderThanSeconds: 0 })).toMatchObject({ effectsRetried: 0 })
        await sql("update payin_transaction set next_effect_at = now() - interval '1 second' where id = ?", [ledgerId])
        expect(await reconcilePayins(getContainer(), { olderThanSeconds: 0 })).toMatchObject({ effectsRetried: 1, effectsDone: 1 })
        expect(await ledgerRow(ledgerId)).toMatchObject({ effect_pending: null, effect_attempts: 0, next_effect_at: null })
        expect((await ledgerRow(ledgerId)).captured_at).not.toBeNull()
        expect((await order(orderId)).payment_status).toBe("captured")
        const payments = await paymentsOf(session.id)
        expect(payments).toHaveLength(1)
        expect(capturedTotal(payments)).toBe(Number(tx.fiatAmount))
      } finally {
        await pluginSettings({ effectRetryLimit: null })
      }
    })

    it("Reconcile now retries an order cancel at once, whatever its backoff", async () => {
      const { ledgerId, orderId, payin: tx } = await placedOrder()
      // the window ends unpaid; Medusa cannot write the order's cancellation
      await blocking("order", async () => {
        await control(sandbox, "POST", "/_sandbox/clock/advance", { seconds: 901 })
        await h.deliver()
      })
      const failed = await ledgerRow(ledgerId)
      expect(failed).toMatchObject({ status: "canceled", effect_pending: "cancel_order", effect_attempts: 1 })
      expect(failed.due_in).toBeGreaterThan(15)
      expect((await order(orderId)).status).not.toBe("canceled")
      expect(sandbox.transaction(tx.id)?.status).toBe("canceled")

      const { data } = await api.post(`/admin/payin/transactions/${ledgerId}/reconcile`, {}, admin)
      expect(data.result).toMatchObject({ effects: expect.arrayContaining(["order_canceled", "ended"]), effectPending: false })
      expect(await ledgerRow(ledgerId)).toMatchObject({ effect_pending: null, next_effect_at: null })
      expect((await order(orderId)).status).toBe("canceled")
    })
    // Medusa never takes back a capture whose order transaction failed: a pay-in paid in full is
    // captured by authorizePaymentSessionForOrderWorkflow (the provider answers `captured`), one paid
    // in part by Medusa's capture workflow; either way the retry writes the transaction once.
    it.each([
      ["paid in full (Medusa's authorize for the order makes and captures the Payment)", 1],
      ["underpaid (Medusa's capture workflow)", 0.5],
    ])("%s, the order's transaction failing: the retry writes it once, and the order's paid total is right", async (_, share) => {
      const { ledgerId, orderId, session, payin: tx } = await placedOrder()
      const received = Number((Number(tx.fiatAmount) * share).toFixed(2))
      const withSummary = "id,payment_status,*transactions,summary"
      const captureTransactions = (o: any) => (o.transactions ?? []).filter((t: any) => t.reference === "capture")
      const closed = JSON.stringify({ ...sandbox.transaction(tx.id), status: "closed", fiatAmount: received.toFixed(2) })
      await blocking("order_transaction", async () => {
        // recorded, its effect still pending
        expect((await postWebhook(closed)).booked).toBe("effect pending")
      })
      const payments = await paymentsOf(session.id)
      expect(payments).toHaveLength(1)
      expect(capturedTotal(payments)).toBe(received)
      expect(await ledgerRow(ledgerId)).toMatchObject({ status: "closed", effect_pending: "capture", effect_attempts: 1 })
      expect(captureTransactions(await order(orderId, withSummary))).toHaveLength(0)

      // the retry, when due: nothing is captured again, the order's transaction is written
      await sql("update payin_transaction set next_effect_at = now() - interval '1 second' where id = ?", [ledgerId])
      expect(await reconcilePayins(getContainer(), { olderThanSeconds: 0 })).toMatchObject({ effectsRetried: 1, effectsDone: 1 })
      expect(await ledgerRow(ledgerId)).toMatchObject({ effect_pending: null, effect_attempts: 0 })
      expect((await ledgerRow(ledgerId)).captured_at).not.toBeNull()
      // once: a forced run of the settled effect and the callback again change nothing
      await applyPendingEffect(getContainer(), ledgerId, { force: true })
      expect(await h.webhook(closed)).toEqual({ status: 200, body: { received: true, duplicate: true } })
      const paid = await order(orderId, withSummary)
      expect(paid.payment_status).toBe(share === 1 ? "captured" : "partially_captured")
      const written = captureTransactions(paid)
      expect(written).toHaveLength(1)
      expect(written[0]).toMatchObject({ reference_id: payments[0].captures[0].id })
      expect(Number(written[0].amount)).toBe(received)
      expect(Number(paid.summary.paid_total)).toBe(received)
      const again = await paymentsOf(session.id)
      expect(again).toHaveLength(1)
      expect(again[0].captures).toHaveLength(1)
    })

    // Medusa's capture workflow writes a missing transaction of an earlier capture with the new
    // capture's amount: the earlier one's is written first, at its own amount.
    it("an underpaid capture without its order transaction, then the rest captured after a recalculation: each recorded at its own amount", async () => {
      const { ledgerId, orderId, session, payin: tx } = await placedOrder()
      const total = Number(tx.fiatAmount)
      const first = Number((total * 0.4).toFixed(2))
      const body = (status: string, fiatAmount: number) => JSON.stringify({ ...sandbox.transaction(tx.id), status, fiatAmount: fiatAmount.toFixed(2) })
      await blocking("order_transaction", async () => {
        expect((await postWebhook(body("closed", first))).booked).toBe("effect pending")
      })
      expect(capturedTotal(await paymentsOf(session.id))).toBe(first)
      // the service settles the dispute at the whole amount before the retry is due
      await postWebhook(body("dispute", first))
      await postWebhook(body("re_calculation", total))
      expect((await postWebhook(body("closed", total))).booked).toBe("effect pending")
      // the retry, due
      expect(await applyPendingEffect(getContainer(), ledgerId, { force: true })).toMatchObject({ effects: ["captured"], pending: false })

      const payments = await paymentsOf(session.id)
      expect(payments).toHaveLength(1)
      expect(payments[0].captures.map((c: any) => Number(c.amount)).sort((a: number, b: number) => a - b)).toEqual(
        [first, Number((total - first).toFixed(2))].sort((a, b) => a - b)
      )
      const paid = await order(orderId, "id,payment_status,*transactions,summary")
      const written = (paid.transactions ?? []).filter((t: any) => t.reference === "capture")
      expect(written.map((t: any) => [t.reference_id, Number(t.amount)]).sort()).toEqual(
        payments[0].captures.map((c: any) => [c.id, Number(c.amount)]).sort()
      )
      expect(Number(paid.summary.paid_total)).toBe(total)
      expect(paid.payment_status).toBe("captured")
    })
  })

  it("the repair of a missing order transaction waits for the order's collection lock: nothing written while it is held, once after", async () => {
    await pluginSettings({ lockTtlSeconds: 5 }) // a held lock is waited for 2.5 s
    try {
      const { ledgerId, orderId, session, payin: tx } = await placedOrder()
      const captureTransactions = async () => ((await order(orderId, "id,*transactions")).transactions ?? []).filter((t: any) => t.reference === "capture")
      await blocking("order_transaction", async () => {
        expect((await postWebhook(JSON.stringify({ ...sandbox.transaction(tx.id), status: "closed" }))).booked).toBe("effect pending")
      })
      expect(capturedTotal(await paymentsOf(session.id))).toBe(Number(tx.fiatAmount))
      expect(await captureTransactions()).toHaveLength(0)

      const key = `payin:collection:${(await ledgerRow(ledgerId)).payment_collection_id}`
      const locking = getContainer().resolve(Modules.LOCKING)
      await locking.acquire(key, { ownerId: "effect-retries-spec", expire: 300 })
      try {
        // another runner holds the order's collection (a capture of another of its pay-ins, a stale runner)
        expect(await applyPendingEffect(getContainer(), ledgerId, { force: true })).toMatchObject({ effects: [], pending: true })
        expect((await ledgerRow(ledgerId)).last_error).toContain(key)
        expect(await captureTransactions()).toHaveLength(0)
      } finally {
        await locking.release(key, { ownerId: "effect-retries-spec" })
      }
      expect(await applyPendingEffect(getContainer(), ledgerId, { force: true })).toMatchObject({ effects: ["captured"], pending: false })
      expect(await applyPendingEffect(getContainer(), ledgerId, { force: true })).toMatchObject({ effects: [], pending: false })
      const written = await captureTransactions()
      expect(written).toHaveLength(1)
      expect(Number(written[0].amount)).toBe(Number(tx.fiatAmount))
      expect((await order(orderId)).payment_status).toBe("captured")
    } finally {
      await pluginSettings({ lockTtlSeconds: null })
    }
  })

  describe("fencing", () => {
    it("a capture held past the lock's lifetime keeps its lock: no second run meanwhile, captured once", async () => {
      await pluginSettings({ lockTtlSeconds: 5 })
      const { ledgerId, orderId, session, payin: tx } = await captureFailedOnce()
      pause(`capture:${ledgerId}`)
      const first = applyPendingEffect(getContainer(), ledgerId, { force: true })
      let second: Promise<string> | null = null
      try {
        await pausedAt(`capture ${ledgerId}`)
        const [{ expiration }] = await sql("select expiration from locking where id = ?", [`payin:${ledgerId}`])
        // the lifetime it was taken with passes while the capture is held
        await eventually("the lock's first expiry passed", async () => (await sql("select now() > ?::timestamptz as past", [expiration]))[0].past, 30_000, 200)
        second = applyPendingEffect(getContainer(), ledgerId, { force: true }).then(
          () => "ran",
          (e: Error) => e.name
        )
        const outcome = await Promise.race([second, pausedAt(`capture ${ledgerId}`, 2).then(() => "a second run reached Medusa's capture")])
        expect(outcome).toBe("LockTimeoutError")
      } finally {
        resume()
        await second
        await pluginSettings({ lockTtlSeconds: null })
      }
      expect(await first).toMatchObject({ effects: ["captured"], pending: false })
      expect(await ledgerRow(ledgerId)).toMatchObject({ effect_pending: null })
      expect((await order(orderId)).payment_status).toBe("captured")
      const payments = await paymentsOf(session.id)
      expect(payments).toHaveLength(1)
      expect(payments[0].captures).toHaveLength(1)
      expect(capturedTotal(payments)).toBe(Number(tx.fiatAmount))
    })

    it("a run overtaken while held stops before Medusa's capture and marks nothing; the next run captures once", async () => {
      const { ledgerId, orderId, session, payin: tx } = await captureFailedOnce()
      pause(`capture:${ledgerId}`)
      const stale = applyPendingEffect(getContainer(), ledgerId, { force: true })
      try {
        await pausedAt(`capture ${ledgerId}`)
        // what another process does once the lock lapsed: takes the lock and claims the effect
        await sql("update locking set owner_id = 'another-process', expiration = now() + interval '1 hour' where id = ?", [`payin:${ledgerId}`])
        await sql("update payin_transaction set effect_fence = effect_fence + 1 where id = ?", [ledgerId])
      } finally {
        resume()
      }
      expect(await stale).toMatchObject({ effects: [], pending: true })
      // nothing booked, nothing marked done, not counted as a failed attempt
      expect(capturedTotal(await paymentsOf(session.id))).toBe(0)
      expect((await order(orderId)).payment_status).toBe("awaiting")
      expect(await ledgerRow(ledgerId)).toMatchObject({ effect_pending: "capture", effect_attempts: 1, captured_at: null })

      await sql("delete from locking where id = ? and owner_id = 'another-process'", [`payin:${ledgerId}`])
      expect(await applyPendingEffect(getContainer(), ledgerId, { force: true })).toMatchObject({ effects: ["captured"], pending: false })
      expect((await order(orderId)).payment_status).toBe("captured")
      const payments = await paymentsOf(session.id)
      expect(payments).toHaveLength(1)
      expect(capturedTotal(payments)).toBe(Number(tx.fiatAmount))
    })
  })

  it("two service transactions racing for one session: the second is applied at once to its own flagged pay-in, not retried as a conflict", async () => {
    const { ledgerId, orderId, session, payin: tx } = await placedOrder()
    // the answer to the creation was lost: the row knows its session, not its service id yet
    await sql("update payin_transaction set service_id = null where id = ?", [ledgerId])
    const other = { ...sandbox.transaction(tx.id)!, id: randomUUID(), status: "active" }
    // the other one's callback finds the session's row, and is held before it takes its lock …
    pause(`record:${other.id}`)
    const late = postWebhook(JSON.stringify(other))
    try {
      await pausedAt(`record ${other.id}`)
      // … while the real pay-in's callback takes the row
      await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/pay`)
      // booked beside the held one (the drain applies several at once)
      await sandbox.webhooksIdle()
      await eventually("the real pay-in's callback booked", async () => (await ledgerRow(ledgerId)).effect_pending === null && (await ledgerRow(ledgerId)).status === "closed")
      expect(await ledgerRow(ledgerId)).toMatchObject({ service_id: tx.id, status: "closed", effect_pending: null })
    } finally {
      resume()
    }
    // applied at once: not left for a retry as a transient conflict (state failed)
    const answer = await late
    expect(answer.status).toBe(200)
    const entry = await eventually("the other callback settled", async () => {
      const [e] = await sql("select state, last_error, result from payin_webhook_event where service_id = ?", [other.id])
      return e?.state === "received" ? null : e
    })
    expect(entry).toMatchObject({ state: "applied", last_error: null })
    expect(entry.result.ledgerId).not.toBe(ledgerId)
    const unknown = await ledgerRow(entry.result.ledgerId)
    expect(unknown).toMatchObject({ service_id: other.id, status: "active" })
    expect(unknown.flags.unknown_payin).toMatchObject({ external_id: session.id, session_payin_id: ledgerId })
    expect(unknown.flags.unknown_payin.reason).toMatch(new RegExp(`${ledgerId} is service transaction ${tx.id}`))
    // the session's pay-in and its order are untouched by it
    expect(await ledgerRow(ledgerId)).toMatchObject({ service_id: tx.id, status: "closed" })
    expect((await order(orderId)).payment_status).toBe("captured")
    expect(await paymentsOf(session.id)).toHaveLength(1)
  })

  it("soak seed 1 (30 minutes, sixth run): a dispute callback read before a close was booked, and held until after it, is old news: no dispute_after_payment", async () => {
    const { ledgerId, orderId, payin: tx } = await placedOrder()
    sandbox.updateMerchant({ webhookUrl: null }) // the callbacks are posted by hand
    await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/dispute`)
    const disputed = JSON.stringify(sandbox.transaction(tx.id))
    const paid = (Number(tx.fiatAmount) - 500).toFixed(2)
    await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/recalculate`, { fiatAmount: paid })
    await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/close`)
    // the dispute's callback reads the row (still active), then is held before the pay-in's lock …
    pause(`record:${tx.id}@1`)
    const held = postWebhook(disputed)
    try {
      await pausedAt(`record ${tx.id}`)
      // … while reconciliation books the close: paid less, captured
      expect((await api.post(`/admin/payin/transactions/${ledgerId}/reconcile`, {}, admin)).status).toBe(200)
      const booked = await ledgerRow(ledgerId)
      expect([booked.status, booked.effect_pending, Number(booked.fiat_amount)]).toEqual(["closed", null, Number(paid)])
    } finally {
      resume()
    }
    expect((await held).applied).toMatchObject({ state: "applied", changed: false })
    // before: the held callback moved the paid pay-in back to dispute and flagged dispute_after_payment
    const row = await ledgerRow(ledgerId)
    expect(row.status).toBe("closed")
    expect(Object.keys(row.flags ?? {}).sort()).toEqual(["underpayment"])
    expect((await sql("select to_status from payin_status_change where transaction_id = ? order by created_at", [ledgerId])).map((c) => c.to_status)).not.toContain("dispute")
    expect((await order(orderId, "id,payment_status")).payment_status).toBe("partially_captured")
  })

  it("the expired notice says the order was canceled when an earlier run canceled it and stopped before marking it done", async () => {
    const { ledgerId, orderId } = await placedOrder()
    // Medusa cancels the order; then the ledger cannot record the pay-in ended (the run stops there)
    await blocking(
      "payin_transaction",
      async () => {
        await control(sandbox, "POST", "/_sandbox/clock/advance", { seconds: 901 })
        await h.deliver()
      },
      "store_canceled_at is null"
    )
    expect((await order(orderId)).status).toBe("canceled")
    expect(await ledgerRow(ledgerId)).toMatchObject({ status: "canceled", effect_pending: "cancel_order", effect_attempts: 1 })
    expect(events.some((e) => e.name === PAYIN_EVENTS.EXPIRED)).toBe(false)

    // the retry finds the order canceled already: it does not cancel it again, and says so
    const { data } = await api.post(`/admin/payin/transactions/${ledgerId}/reconcile`, {}, admin)
    expect(data.result).toMatchObject({ effects: ["ended"], effectPending: false })
    const expired = events.filter((e) => e.name === PAYIN_EVENTS.EXPIRED)
    expect(expired.map((e) => e.data)).toEqual([expect.objectContaining({ id: ledgerId, order_id: orderId, order_canceled: true })])
    expect((await order(orderId)).status).toBe("canceled")
  })
})
