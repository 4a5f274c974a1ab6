// A health alert and a process killed between sending it and recording it (issue 39), in a store
// with both a `feed` and an e-mail provider. Server A (`medusa start`) checks every 5 s and stops
// at the test app's fault point `alert`, after the Notification Module sent the alert and before
// the delivery is recorded; it is SIGKILLed there. Its lease on the alert expires, and the next
// check in another process (this jest process's app) sends it again under the same idempotency
// keys: Medusa's records hold one feed notification and one e-mail for the incident, and one of
// each for its recovery.
import { mkdtempSync, writeFileSync } from "fs"
import os from "os"
import path from "path"
import { Modules } from "@medusajs/framework/utils"
import { envForFile } from "../support/env"
import { storeSpec } from "../support/harness"
import { type MedusaProcess, eventually, startMedusa } from "../support/medusa-process"
import { control } from "../support/sandbox"

jest.setTimeout(300_000)

const KEY = "alert-crash-key-0123456789"
const WRONG_KEY = "alert-crash-not-the-key-9876543"
const OPS = "ops@payin.test"
const PROVIDER = "pp_payin_default"

// this process's own timer stays quiet: the test runs its checks by hand
envForFile({ MEDUSA_WORKER_MODE: "server", PAYIN_HEALTH_CHECK_INTERVAL_SECONDS: "3600" })

storeSpec({ key: KEY, providerIds: [PROVIDER] }, (h, { dbConfig }) => {
  it("an alert sent by a process killed before recording it is sent again under the same keys: one feed notification and one e-mail per incident", async () => {
    const notifications = h.getContainer().resolve(Modules.NOTIFICATION) as any
    const ofKey = async (prefix: string) =>
      ((await notifications.listNotifications({}, { take: 1000 })) as { channel: string; to: string; status: string; idempotency_key: string; data: any }[]).filter((n) =>
        n.idempotency_key?.startsWith(prefix)
      )
    const stateRow = async () =>
      (await h.sql(`select pending_alerts, alert_lease_until, last_alert_error, alert_lease_until < clock_timestamp() as expired from payin_health_state where scope = ? and signal = 'service_key'`, [PROVIDER]))
        .rows[0]
    const merchant = async (patch: Record<string, unknown>) => expect((await control(h.sandbox, "PUT", "/_sandbox/merchant", patch)).status).toBe(200)
    expect((await h.api.post("/admin/payin/settings", { alertEmailRecipients: [OPS] }, h.admin)).status).toBe(200)

    const pauseFile = path.join(mkdtempSync(path.join(os.tmpdir(), "payin-alert-")), "pause")
    writeFileSync(pauseFile, "alert")
    let serverA: MedusaProcess | undefined
    try {
      serverA = await startMedusa("server A", {
        DATABASE_URL: dbConfig.clientUrl,
        MEDUSA_WORKER_MODE: "server",
        PAYIN_HEALTH_CHECK_INTERVAL_SECONDS: "5",
        PAYIN_TEST_PAUSE_FILE: pauseFile,
      })
      // the key refused on a checkout: service_key fails at server A's next check
      await merchant({ apiKey: WRONG_KEY })
      expect((await h.shop.sessionError(await h.shop.cart(), PROVIDER)).status).toBeGreaterThanOrEqual(400)
      const paused = (await eventually("server A paused after sending the alert", async () => /paused before the alert of (\S+)/.exec(serverA!.log())?.[1] ?? null, 60_000, 250))!
      expect(paused).toMatch(new RegExp(`^payin:health:${PROVIDER}:service_key:\\d+:failing$`))
      // sent: one feed notification and one e-mail, under the incident's keys; not recorded as delivered
      const sent = await ofKey(paused)
      expect(sent.map((n) => `${n.channel}:${n.to}:${n.status}`).sort()).toEqual([`email:${OPS}:success`, "feed::success"])
      expect((await stateRow()).pending_alerts.map((a: any) => a.key)).toEqual([paused])

      await serverA.kill()
      await eventually("server A's lease on the alert expired", async () => ((await stateRow()).expired ? true : null), 60_000, 500)
      // another process's check delivers what is pending again: Medusa sends nothing twice
      const again = await h.payin().healthMonitor.checkNow()
      expect(again.map((a: any) => a.idempotencyKey)).toContain(paused)
      expect((await ofKey(paused)).map((n) => `${n.channel}:${n.status}`).sort()).toEqual(["email:success", "feed:success"])
      expect(await stateRow()).toMatchObject({ pending_alerts: [], alert_lease_until: null, last_alert_error: null })

      // the key accepted again: one recovery of each
      await merchant({ apiKey: KEY })
      await h.shop.session(await h.shop.cart(), PROVIDER)
      const recovered = (await eventually(
        "the recovery",
        async () => {
          const sentNow = await h.payin().healthMonitor.checkNow()
          return sentNow.find((a: any) => a.signal.id === "service_key" && a.kind === "recovered") ?? null
        },
        30_000,
        1000
      ))!
      expect((await ofKey(recovered.idempotencyKey)).map((n) => `${n.channel}:${n.status}`).sort()).toEqual(["email:success", "feed:success"])
      const incident = paused.replace(/:failing$/, "")
      expect((await ofKey(incident)).map((n) => `${n.channel}:${n.data.state}`).sort()).toEqual(["email:failing", "email:recovered", "feed:failing", "feed:recovered"])
    } finally {
      await serverA?.kill()
    }
  })
})
