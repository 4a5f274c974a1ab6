// Health alerts in a store configured like a real one (issue 39): its Notification Module lists
// its own providers, an e-mail one and no `feed` provider (Medusa registers `feed` only in its
// default config). The jest process's app is a server; one worker runs the plugin's jobs, on one
// PostgreSQL (locking-postgres). Every process checks the health.
//   1. The check interval lowered from 60 s to 5 s in the admin: taken up within the documented
//      bound (an alert due is sent within it).
//   2. The service refuses the key: `service_key` fails; one alert e-mail goes out, nothing is
//      created on the `feed` channel, no failed notification row is written check after check, and
//      the health report says once that there is no feed provider.
//   3. The reconciliation interval lowered from 300 s to 10 s in the admin while the worker runs:
//      the job runs on the new interval within the documented bound (it had kept the old one, and
//      `jobs_overdue` alerted "Start a worker" for minutes); raised again to 300 s: never overdue.
//   4. The key accepted again: one recovery e-mail. At the end, Medusa's notification records hold
//      exactly the two e-mails.
import { Modules } from "@medusajs/framework/utils"
import { RECONCILE_JOB } from "../../src/money-path/reconcile"
import { overdueAfterMs } from "../../src/modules/payin/job-runs/job-runs"
import { NO_FEED_PROVIDER } from "../../src/medusa"
import { envForFile } from "../support/env"
import { storeSpec } from "../support/harness"
import { type MedusaProcess, eventually, startMedusa } from "../support/medusa-process"
import { control } from "../support/sandbox"

jest.setTimeout(600_000)

const KEY = "health-alerts-key-0123456789"
const WRONG_KEY = "health-alerts-not-the-key-987654"
const OPS = "ops@payin.test"
const PROVIDER = "pp_payin_default"
/** Settings are cached 5 s in each process and the health timer wakes at least every 5 s (README "Health and alerts"). */
const SETTING_TAKEN_UP_MS = 10_000

envForFile({
  MEDUSA_WORKER_MODE: "server",
  PAYIN_TEST_NOTIFICATION_CHANNELS: "email",
  PAYIN_HEALTH_CHECK_INTERVAL_SECONDS: "60",
  PAYIN_RECONCILE_INTERVAL_SECONDS: "300",
})

storeSpec({ key: KEY, providerIds: [PROVIDER] }, (h, { dbConfig }) => {
  it("an e-mail-only store gets one alert e-mail and one recovery, no feed row, no failed row; changed intervals are taken up and never look like a dead worker", async () => {
    const notifications = h.getContainer().resolve(Modules.NOTIFICATION) as any
    const all = async () => (await notifications.listNotifications({}, { take: 1000 })) as { channel: string; to: string; template: string; status: string; data: any }[]
    const alertMails = async (signal: string, state: string) => (await all()).filter((n) => n.channel === "email" && n.to === OPS && n.data?.signal === signal && n.data?.state === state)
    /** The alert e-mails once sent: Medusa writes the row `pending` and marks it when its provider answers. */
    const sentAlertMails = async (signal: string, state: string) => {
      const found = await alertMails(signal, state)
      return found.length && found.every((n) => n.status !== "pending") ? found : null
    }
    const health = async () => (await h.api.get("/admin/payin/health", h.admin)).data
    const signal = async (id: string) => (await health()).signals.find((s: any) => s.id === id)
    const settings = async (patch: Record<string, unknown>) => expect((await h.api.post("/admin/payin/settings", patch, h.admin)).status).toBe(200)
    const merchant = async (patch: Record<string, unknown>) => expect((await control(h.sandbox, "PUT", "/_sandbox/merchant", patch)).status).toBe(200)
    const reconcileRun = () => h.ledger.lastJobRun(RECONCILE_JOB)
    /** Polls the health until `until` (ms): jobs_overdue must never fail meanwhile. */
    const neverOverdueUntil = async (until: number) => {
      while (Date.now() < until) {
        const jobs = await signal("jobs_overdue")
        expect({ state: jobs.state, summary: jobs.summary }).toMatchObject({ state: expect.not.stringMatching(/^failing$/) })
        await new Promise((r) => setTimeout(r, 1000))
      }
    }

    let worker: MedusaProcess | undefined
    try {
      worker = await startMedusa("worker", {
        DATABASE_URL: dbConfig.clientUrl,
        MEDUSA_WORKER_MODE: "worker",
        PAYIN_TEST_NOTIFICATION_CHANNELS: "email",
        PAYIN_HEALTH_CHECK_INTERVAL_SECONDS: "60",
        PAYIN_RECONCILE_INTERVAL_SECONDS: "300",
      })
      await settings({ alertEmailRecipients: [OPS] })
      // the worker's first reconciliation (never ran: due at its first 5 s tick), under 300 s
      const first = await eventually("the worker's first reconciliation", async () => ((await reconcileRun())?.runs >= 1 ? reconcileRun() : null), 30_000, 500)
      expect(first.interval_seconds).toBe(300)

      // 1 + 2. The key is refused on a checkout; then the check interval is lowered to 5 s.
      await merchant({ apiKey: WRONG_KEY })
      const refused = await h.shop.sessionError(await h.shop.cart(), PROVIDER)
      expect(refused.status).toBeGreaterThanOrEqual(400)
      await settings({ healthCheckIntervalSeconds: 5 })
      const [mail] = (await eventually(
        "the service_key alert e-mail, within the documented bound of the interval's change",
        () => sentAlertMails("service_key", "failing"),
        SETTING_TAKEN_UP_MS + 5_000 + 2_000,
        250
      ))!
      expect(mail).toMatchObject({ template: "payin.health.failing", status: "success" })
      expect(mail.data.title).toBe("Pay-ins: the service refuses the API key (default)")

      // 3. The reconciliation interval lowered while the worker runs: it runs on 10 s from the
      //    next ticks (not when its old 300 s lock would have expired).
      const beforeLowered = (await reconcileRun())!
      await settings({ reconcileIntervalSeconds: 10 })
      const lowered = await eventually(
        "a reconciliation run under 10 s",
        async () => {
          const run = await reconcileRun()
          return run && run.runs > beforeLowered.runs && run.interval_seconds === 10 ? run : null
        },
        SETTING_TAKEN_UP_MS + 10_000 + 5_000,
        250
      )
      expect(lowered.interval_seconds).toBe(10)
      // and keeps that pace: the next run within the interval plus a tick
      await eventually("the next run under 10 s", async () => ((await reconcileRun())!.runs > lowered.runs ? true : null), 10_000 + 5_000 + 5_000, 250)

      // meanwhile, checks every 5 s: still the one e-mail, nothing on the feed, no failed row
      expect(await alertMails("service_key", "failing")).toHaveLength(1)
      const rows = await all()
      expect(rows.filter((n) => n.channel === "feed")).toEqual([])
      expect(rows.filter((n) => n.status === "failure")).toEqual([])
      const keySignal = await signal("service_key")
      expect(keySignal).toMatchObject({ state: "failing", alert_error: expect.stringContaining(NO_FEED_PROVIDER) })
      expect((await health()).alerts.delivery_error).toContain('no notification provider for the "feed" channel')

      // 3b. Raised again: the next run is due 300 s after the last; watched past the window a 10 s
      //     job is overdue in (35 s), which also covers the runs under 10 s before it
      await settings({ reconcileIntervalSeconds: 300 })
      const watchUntil = Date.now() + overdueAfterMs(10) + 5_000

      // 4. The key accepted again: an accepted call ends the incident with one recovery e-mail.
      await merchant({ apiKey: KEY })
      await h.shop.session(await h.shop.cart(), PROVIDER)
      await eventually("the service_key recovery e-mail", () => sentAlertMails("service_key", "recovered"), 30_000, 250)
      await neverOverdueUntil(watchUntil)

      const end = await all()
      expect(end.filter((n) => n.channel === "email").map((n) => `${n.data.signal}:${n.data.state}:${n.status}`).sort()).toEqual([
        "service_key:failing:success",
        "service_key:recovered:success",
      ])
      expect(end.filter((n) => n.channel !== "email")).toEqual([])
      expect(await h.sql(`select count(*)::int as n from payin_health_state where pending_alerts <> '[]'::jsonb`)).toMatchObject({ rows: [{ n: 0 }] })
    } finally {
      await worker?.kill()
    }
  })
})
