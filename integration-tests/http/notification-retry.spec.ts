// Shopper notifications that fail to send are sent again (issue 23): each notification owed is
// recorded with its outcome, the retry job sends again what failed or never went out, with backoff
// and a limit, and one that succeeded is never sent twice. A real Medusa on PostgreSQL with a
// notification provider that fails on demand (the test app's "flaky" channel).
import { Modules } from "@medusajs/framework/utils"
import { NOTIFICATION_MAX_ATTEMPTS } from "../../src/modules/payin/notification-log/log"
import { notifyOrderPlaced } from "../../src/notifications/notify"
import { retryDueNotifications } from "../../src/notifications/retry"
import type { RunningSandbox } from "../../src/sandbox"
import { flakyNotifications } from "../app/notification-flaky"
import { storeSpec } from "../support/harness"
import { eventually } from "../support/medusa-process"
import { control } from "../support/sandbox"
import { Storefront } from "../support/storefront"

jest.setTimeout(180_000)
process.env.PAYIN_TEST_FLAKY_NOTIFICATIONS = "true"

const KEY = "notification-retry-key-0123456789"

const minutesFromNow = (minutes: number) => new Date(Date.now() + minutes * 60_000)

storeSpec(
  { key: KEY, providerIds: ["pp_payin_default"], reloadSettings: true, beforeReset: () => (flakyNotifications.failFirst = 0) },
  (h) => {
    const { api, getContainer } = h
    let sandbox: RunningSandbox, shop: Storefront, admin: { headers: Record<string, string> }
    beforeEach(async () => {
      ;({ sandbox, shop, admin } = h)
      await api.post("/admin/payin/settings/default", { notifications: { enabled: true, channel: "flaky" } }, admin)
    })

    /** The order's notifications as the admin's pay-in detail shows them. */
    const shown = async (ledgerId: string) =>
      (await api.get(`/admin/payin/transactions/${ledgerId}`, admin)).data.notifications as any[]
    /** What the provider was asked to send for one order (each order's own count: another test's late event is not counted). */
    const attemptsOf = (orderId: string) => flakyNotifications.attempted.filter((a) => a.order_id === orderId).length
    /** The Notification Module's rows of one order and kind. */
    const moduleRows = async (orderId: string, kind: string) =>
      ((await (getContainer().resolve(Modules.NOTIFICATION) as any).listNotifications({ idempotency_key: `payin:${kind}:${orderId}` })) as any[])

    it("the provider fails twice, then sends: the shopper gets exactly one message, and the admin shows the attempts", async () => {
      flakyNotifications.failFirst = 2
      const { orderId, session } = await h.placedOrder()
      const ledgerId = (await h.ledger.rows({ session_id: session.id }))[0].id
      // order.placed: the first attempt fails, recorded with its reason and the next attempt's time
      const first = await eventually("the first attempt recorded", async () => {
        const [n] = await shown(ledgerId)
        return n?.status === "failed" ? n : null
      })
      expect(first).toMatchObject({ kind: "instructions", attempts: 1, last_error: expect.stringMatching(/the test provider is down/) })
      expect(new Date(first.next_attempt_at).getTime()).toBeGreaterThan(Date.now())
      // not due yet: the retry job leaves it alone
      expect(await retryDueNotifications(getContainer())).toMatchObject({ due: 0 })

      // the job's runs once the backoff passed: fails again, then sends
      expect(await retryDueNotifications(getContainer(), { now: minutesFromNow(2) })).toMatchObject({ due: 1, failed: 1 })
      expect((await shown(ledgerId))[0]).toMatchObject({ status: "failed", attempts: 2 })
      expect(await retryDueNotifications(getContainer(), { now: minutesFromNow(60) })).toMatchObject({ due: 1, sent: 1 })
      const [sent] = await shown(ledgerId)
      expect(sent).toMatchObject({ kind: "instructions", status: "sent", attempts: 3, next_attempt_at: null, sent_at: expect.any(String) })

      // never again: nothing due, and a repeated order.placed finds it sent
      expect(await retryDueNotifications(getContainer(), { now: minutesFromNow(60 * 24) })).toMatchObject({ due: 0 })
      expect(await notifyOrderPlaced(getContainer(), orderId)).toMatchObject({ kind: "instructions", outcome: "already_sent" })
      expect(attemptsOf(orderId)).toBe(3)
      expect(flakyNotifications.sent.filter((s) => s.order_id === orderId)).toEqual([
        expect.objectContaining({ template: "payin.instructions" }),
      ])
      const rows = await moduleRows(orderId, "instructions")
      expect(rows.map((r) => r.status)).toEqual(["success"])
    })

    it("a notification decided but never sent (a crash before the send) goes out once; one no longer owed is skipped", async () => {
      const { orderId, session, payin: tx } = await h.placedOrder()
      const ledgerId = (await h.ledger.rows({ session_id: session.id }))[0].id
      await eventually("instructions sent", async () => (await shown(ledgerId))[0]?.status === "sent")
      // the process died after deciding "paid" was owed, before sending it
      await h.ledger.notificationDue(orderId, "paid", ledgerId, "payin.captured")
      // …and the order is not paid: the retry finds it no longer owed and never sends it
      expect(await retryDueNotifications(getContainer(), { now: minutesFromNow(5) })).toMatchObject({ due: 1, skipped: 1 })
      expect((await shown(ledgerId)).find((n) => n.kind === "paid")).toMatchObject({ status: "skipped", next_attempt_at: null })

      // paid now: payin.paid is owed and sent once, by its trigger
      await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/pay`)
      await sandbox.webhooksIdle()
      await eventually("paid sent", async () => (await shown(ledgerId)).find((n) => n.kind === "paid")?.status === "sent")
      expect(flakyNotifications.sent.filter((s) => s.order_id === orderId).map((s) => s.template).sort()).toEqual(["payin.instructions", "payin.paid"])
    })

    it("soak seed 1 (30 minutes): a notification Medusa left pending (its sender killed before the provider's answer was recorded) is sent again once 30 s old; a younger one is not sent twice", async () => {
      const { orderId, session } = await h.placedOrder()
      const ledgerId = (await h.ledger.rows({ session_id: session.id }))[0].id
      await eventually("instructions sent", async () => (await shown(ledgerId))[0]?.status === "sent")
      const key = `payin:instructions:${orderId}`
      // the worker died after the Notification Module wrote its row, before the provider's answer and the plugin's record
      await h.sql(`update notification set status = 'pending', updated_at = now() where idempotency_key = ?`, [key])
      await h.sql(`update payin_notification set status = 'due', sent_at = null, next_attempt_at = now() where order_id = ? and kind = 'instructions'`, [orderId])
      // its sender may still be answering: tried again later, not sent now
      expect(await retryDueNotifications(getContainer(), { now: minutesFromNow(1) })).toMatchObject({ due: 1, failed: 1 })
      expect((await moduleRows(orderId, "instructions")).map((r) => r.status)).toEqual(["pending"])
      expect((await shown(ledgerId))[0]).toMatchObject({ status: "failed", last_error: expect.stringMatching(/is being sent/) })
      // 30 s on, no sender answered: sent again as itself, once
      await h.sql(`update notification set updated_at = now() - interval '31 seconds' where idempotency_key = ?`, [key])
      expect(await retryDueNotifications(getContainer(), { now: minutesFromNow(10) })).toMatchObject({ due: 1, sent: 1 })
      expect((await moduleRows(orderId, "instructions")).map((r) => r.status)).toEqual(["success"])
      expect(flakyNotifications.sent.filter((s) => s.order_id === orderId && s.template === "payin.instructions")).toHaveLength(2)
      expect((await shown(ledgerId))[0]).toMatchObject({ status: "sent", next_attempt_at: null })
      expect(await retryDueNotifications(getContainer(), { now: minutesFromNow(60) })).toMatchObject({ due: 0 })
    })

    it("soak seed 1 (30 minutes, third run): a notification left pending whose retry finds it no longer owed is marked failure in Medusa, never left pending", async () => {
      const { orderId, session, payin } = await h.placedOrder()
      const ledgerId = (await h.ledger.rows({ session_id: session.id }))[0].id
      await eventually("instructions sent", async () => (await shown(ledgerId))[0]?.status === "sent")
      const key = `payin:instructions:${orderId}`
      // the worker died between the module's row and the provider's answer, then the shopper paid:
      // the instructions are owed no more
      await h.sql(`update notification set status = 'pending', updated_at = now() where idempotency_key = ?`, [key])
      await h.sql(`update payin_notification set status = 'due', sent_at = null, next_attempt_at = now() where order_id = ? and kind = 'instructions'`, [orderId])
      expect((await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/pay`)).status).toBe(200)
      await h.deliver()
      const instructions = async () => (await shown(ledgerId)).find((n) => n.kind === "instructions")
      await eventually("paid sent", async () => (await shown(ledgerId)).some((n) => n.kind === "paid" && n.status === "sent"))
      // its sender may still answer: not settled yet, tried again later
      expect(await retryDueNotifications(getContainer(), { now: minutesFromNow(1) })).toMatchObject({ due: 1, failed: 1 })
      expect((await moduleRows(orderId, "instructions")).map((r) => r.status)).toEqual(["pending"])
      // 30 s on, no sender answered: not sent (no longer owed), and Medusa's row says it was not sent
      await h.sql(`update notification set updated_at = now() - interval '31 seconds' where idempotency_key = ?`, [key])
      expect(await retryDueNotifications(getContainer(), { now: minutesFromNow(10) })).toMatchObject({ due: 1, skipped: 1 })
      expect((await moduleRows(orderId, "instructions")).map((r) => r.status)).toEqual(["failure"])
      expect(await instructions()).toMatchObject({ status: "skipped" })
      expect(flakyNotifications.sent.filter((s) => s.order_id === orderId && s.template === "payin.instructions")).toHaveLength(1)
      expect(await retryDueNotifications(getContainer(), { now: minutesFromNow(60) })).toMatchObject({ due: 0 })
    })

    it("gives up after the attempt limit: the admin shows it failed, with no next attempt", async () => {
      flakyNotifications.failFirst = 1_000
      const { orderId, session } = await h.placedOrder()
      const ledgerId = (await h.ledger.rows({ session_id: session.id }))[0].id
      await eventually("the first attempt recorded", async () => (await shown(ledgerId))[0]?.status === "failed")
      for (let attempt = 2; attempt <= NOTIFICATION_MAX_ATTEMPTS; attempt++) {
        await retryDueNotifications(getContainer(), { now: minutesFromNow(60 * attempt) })
      }
      expect((await shown(ledgerId))[0]).toMatchObject({ status: "failed", attempts: NOTIFICATION_MAX_ATTEMPTS, next_attempt_at: null })
      expect(await retryDueNotifications(getContainer(), { now: minutesFromNow(60 * 24 * 30) })).toMatchObject({ due: 0 })
      expect(attemptsOf(orderId)).toBe(NOTIFICATION_MAX_ATTEMPTS)
    })
  }
)
