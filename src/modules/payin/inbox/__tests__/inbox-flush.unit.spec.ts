import { MinuteCounters } from "../../counters/counters"
import { WebhookInbox } from "../inbox"

/**
 * Webhook health flushes the in-memory delivery counts before it reads them. A flush started by
 * the 2-second timer may still be writing then: the caller's flush must wait for it, or health
 * reads counters without those counts (seen in money-path.spec: a refused delivery read as 0).
 * The statements are recorded by a stand-in for the database whose first write is the slowest.
 */
describe("WebhookInbox.flush", () => {
  it("resolves only after every flush started before it has written its counts", async () => {
    const done: string[] = []
    const delays = [80, 5]
    const db = {
      raw: async (sql: string, bindings: unknown[] = []) => {
        if (/insert into payin_health_counter/.test(sql)) {
          await new Promise((r) => setTimeout(r, delays.shift() ?? 0))
          done.push(bindings.filter((b) => typeof b === "string" && b.startsWith("webhook:")).join(","))
        }
        return { rows: [] }
      },
    }
    const inbox = new WebhookInbox(() => db as any, new MinuteCounters(() => db as any))
    inbox.countRejected("pp_payin_default", "first")
    const timerFlush = inbox.flush()
    // the timer's flush is writing (its counts taken) when more arrive and health flushes
    await new Promise((r) => setImmediate(r))
    inbox.countRejected("pp_payin_default", "second")
    await inbox.flush()
    expect(done).toEqual(["webhook:refused:first", "webhook:refused:second"])
    await timerFlush
  })

  it("counts a delivery refused after it was stored as refused, not accepted", async () => {
    const rows: { kind: string; count: number }[] = []
    const db = {
      raw: async (sql: string, bindings: unknown[] = []) => {
        if (/insert into payin_health_counter/.test(sql)) {
          for (let i = 0; i < bindings.length; i += 9) rows.push({ kind: String(bindings[i + 3]), count: Number(bindings[i + 4]) })
        }
        if (/update payin_webhook_event set state = 'rejected'/.test(sql)) return { rows: [{ provider_id: "pp_payin_default" }] }
        if (/insert into payin_webhook_event/.test(sql)) {
          const [, [provider_id], , , [payload_hash]] = bindings as string[][]
          return { rows: [{ id: "payinwh_1", state: "received", inserted: true, provider_id, payload_hash }] }
        }
        return { rows: [] }
      },
    }
    const inbox = new WebhookInbox(() => db as any, new MinuteCounters(() => db as any))
    await inbox.receive("pp_payin_default", { id: "tx_1", status: "active" } as any, "{}")
    await inbox.settle("payinwh_1", { ok: false, error: "another account's pay-in", permanent: true, reason: "foreign_payin" })
    await inbox.flush()
    const sum = (kind: string) => rows.filter((r) => r.kind === kind).reduce((s, r) => s + r.count, 0)
    expect([sum("webhook:accepted"), sum("webhook:refused:foreign_payin")]).toEqual([0, 1])
  })
})
