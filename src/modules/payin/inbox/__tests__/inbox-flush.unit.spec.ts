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
        if (/insert into payin_webhook_counter/.test(sql)) {
          await new Promise((r) => setTimeout(r, delays.shift() ?? 0))
          done.push(String(bindings[bindings.length - 1]))
        }
        return { rows: [] }
      },
    }
    const inbox = new WebhookInbox(() => db as any)
    inbox.countRejected("pp_payin_default", "first")
    const timerFlush = inbox.flush()
    // the timer's flush is writing (its counts taken) when more arrive and health flushes
    await new Promise((r) => setImmediate(r))
    inbox.countRejected("pp_payin_default", "second")
    await inbox.flush()
    expect(done).toEqual(["first", "second"])
    await timerFlush
  })
})
