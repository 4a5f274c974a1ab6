import type { RunningSandbox } from "../../src/sandbox"
import { API_KEY, call, DECIMAL_2, DIGITS, hmacHex, ISO_MS, payInBody, sleep, sandboxUnderTest, WebhookReceiver } from "./helpers"

describe("sandbox state changes and signed webhooks", () => {
  const under = sandboxUnderTest({ webhookRetryDelaysMs: [20, 40], seed: 7 }, (webhookUrl) => ({
    webhookUrl,
    webhookMode: "in_order",
    webhookRetryDelaysMs: [20, 40],
    apiKey: API_KEY,
  }))
  const { create } = under
  let sandbox: RunningSandbox, base: string, receiver: WebhookReceiver
  beforeAll(() => void ({ sandbox, base, receiver } = under))

  const act = (id: string, action: string, body?: unknown) =>
    call(base, "POST", `/_sandbox/transactions/${id}/${action}`, { apiKey: null, body })

  /** Every received webhook is verified independently over the raw bytes. */
  function expectSigned(hooks: { rawBody: Buffer; signature: string | undefined; contentType: string | undefined }[], key = API_KEY) {
    for (const hook of hooks) {
      expect(hook.contentType).toMatch(/^application\/json/)
      expect(hook.signature).toMatch(/^[0-9a-f]{64}$/)
      expect(hook.signature).toBe(hmacHex(hook.rawBody, key))
    }
  }

  it("creation sends no webhook; pay (active -> closed) sends one signed Transaction", async () => {
    const tx = await create({ extra: { externalTransactionId: "hook-1" } })
    await sandbox.webhooksIdle()
    expect(receiver.received).toHaveLength(0)
    const paid = await act(tx.id, "pay")
    expect(paid.status).toBe(200)
    expect(paid.body.status).toBe("closed")
    const [hook] = await receiver.waitFor(1)
    expectSigned([hook])
    expect(hook.body).toEqual(paid.body)
    expect(hook.body.requisite).toHaveProperty("sbpNumber")
    expect(hook.body.extra.externalTransactionId).toBe("hook-1")
    // The signature is over the exact bytes: the body re-serialised differently would not match.
    expect(hmacHex(JSON.stringify(hook.body, null, 2), API_KEY)).not.toBe(hook.signature)
  })

  it("drives every control action through the transition table, each change firing its webhook", async () => {
    const a = await create({ fiatAmount: 1000 })
    const b = await create({ fiatAmount: 2000 })
    const c = await create({ fiatAmount: 3000 })

    expect((await act(a.id, "expire")).body.status).toBe("canceled")
    expect((await act(b.id, "cancel")).body.status).toBe("canceled")

    const disputed = await act(b.id, "dispute", { checkUrl: "https://receipts.example.test/b.pdf", fiatAmount: "1990.00" })
    expect(disputed.status).toBe(200)
    expect(disputed.body.status).toBe("dispute")
    expect(disputed.body.disputeMerchantCheckUrl).toBe("https://receipts.example.test/b.pdf")
    expect(disputed.body.disputeMerchantFiatAmount).toBe("1990.00")

    const checking = await act(b.id, "checking")
    expect(checking.body.status).toBe("checking")
    expect(checking.body.disputeTraderCheckUrl).toBe(`${base}/_sandbox/transactions/${b.id}/receipt?party=trader`)
    expect(checking.body.disputeTraderFiatAmount).toBe("2000.00")
    const receipt = await call(base, "GET", `/_sandbox/transactions/${b.id}/receipt?party=trader`, { apiKey: null })
    expect(receipt.status).toBe(200)
    expect(receipt.text).toContain(b.id)

    const recalculated = await act(b.id, "recalculate", { fiatAmount: "1929.00" })
    expect(recalculated.body.status).toBe("re_calculation")
    expect(recalculated.body.fiatAmount).toBe("1929.00")
    // 1929.00 / 96.45 = 20 USDT exactly; fee 2.5 %.
    expect(recalculated.body.cryptoAmount).toBe("20000000")
    expect(recalculated.body.merchantFee).toBe("500000")
    expect(Number(recalculated.body.cryptoAmount)).toBeLessThan(Number(b.cryptoAmount))

    expect((await act(b.id, "close")).body.status).toBe("closed")

    // active -> dispute -> re_calculation -> closed, and dispute -> closed.
    expect((await act(c.id, "dispute")).body.disputeMerchantCheckUrl).toBe(`${base}/_sandbox/transactions/${c.id}/receipt?party=merchant`)
    expect((await act(c.id, "recalculate", { fiatAmount: 2999.5 })).body.fiatAmount).toBe("2999.50")
    expect((await act(c.id, "close")).body.status).toBe("closed")
    const d = await create({ fiatAmount: 4000 })
    expect((await act(d.id, "dispute")).body.status).toBe("dispute")
    expect((await act(d.id, "close")).body.status).toBe("closed")

    const expected = [
      [a.id, "canceled"],
      [b.id, "canceled"],
      [b.id, "dispute"],
      [b.id, "checking"],
      [b.id, "re_calculation"],
      [b.id, "closed"],
      [c.id, "dispute"],
      [c.id, "re_calculation"],
      [c.id, "closed"],
      [d.id, "dispute"],
      [d.id, "closed"],
    ]
    const hooks = await receiver.waitFor(expected.length)
    expectSigned(hooks)
    expect(hooks.map((h) => [h.body.id, h.body.status])).toEqual(expected)
    for (const h of hooks) {
      expect(h.body.fiatAmount).toMatch(DECIMAL_2)
      expect(h.body.cryptoAmount).toMatch(DIGITS)
      expect(h.body.disputeMerchantFiatAmount).toMatch(DECIMAL_2)
    }
  })

  it("answers 409 INVALID_TRANSITION for actions the state does not allow, and sends nothing", async () => {
    const tx = await create()
    const invalidFromActive = ["checking", "recalculate", "close"]
    for (const action of invalidFromActive) {
      const res = await act(tx.id, action, action === "recalculate" ? { fiatAmount: "1.00" } : undefined)
      expect(res.status).toBe(409)
      expect(res.body).toMatchObject({ statusCode: 409, code: "INVALID_TRANSITION", status: "active", action })
    }
    await act(tx.id, "pay")
    // closed -> dispute is allowed (a paid transaction can be disputed); nothing else leaves closed.
    for (const action of ["pay", "expire", "cancel", "checking", "close"]) {
      const res = await act(tx.id, action)
      expect(res.status).toBe(409)
      expect(res.body.code).toBe("INVALID_TRANSITION")
    }
    await sandbox.webhooksIdle()
    expect(receiver.received.map((h) => h.body.status)).toEqual(["closed"])
    expect(sandbox.transaction(tx.id)!.status).toBe("closed")

    expect((await act(tx.id, "explode")).status).toBe(404)
    const missing = await act("3f0b7c52-8a43-4d8e-9f3e-0c3c1d1e2f3a", "pay")
    expect(missing.status).toBe(404)
    expect(missing.body.code).toBe("TRANSACTION_NOT_FOUND")
    const badRecalc = await act((await create({ fiatAmount: 5 })).id, "dispute")
    const noAmount = await act(badRecalc.body.id, "recalculate", {})
    expect(noAmount.status).toBe(400)
    expect(noAmount.body.code).toBe("VALIDATION_ERROR")
  })

  it("repeats the current state n more times on /webhook (duplicates), identically signed", async () => {
    const tx = await create()
    await act(tx.id, "pay")
    await receiver.waitFor(1)
    const res = await act(tx.id, "webhook", { repeat: 3 })
    expect(res.status).toBe(202)
    expect(res.body.queued).toBe(3)
    const hooks = await receiver.waitFor(4)
    expectSigned(hooks)
    expect(new Set(hooks.map((h) => h.rawBody.toString("utf8"))).size).toBe(1)
    expect(hooks.every((h) => h.body.status === "closed" && h.body.id === tx.id)).toBe(true)
    const log = (await call(base, "GET", "/_sandbox/webhooks", { apiKey: null })).body
    expect(log.map((e: any) => e.reason)).toEqual(["status_change", "repeat", "repeat", "repeat"])
    // Default repeat is one.
    await act(tx.id, "webhook")
    await receiver.waitFor(5)
  })

  it("logs every delivery attempt with url, body, signature, response status, attempt and time", async () => {
    const tx = await create()
    await act(tx.id, "cancel")
    await receiver.waitFor(1)
    await sandbox.webhooksIdle()
    const log = await call(base, "GET", "/_sandbox/webhooks", { apiKey: null })
    expect(log.status).toBe(200)
    expect(log.body).toHaveLength(1)
    const [entry] = log.body
    expect(entry).toMatchObject({ transactionId: tx.id, status: "canceled", url: receiver.url, responseStatus: 200, attempt: 1, error: null })
    expect(entry.body).toBe(receiver.received[0].rawBody.toString("utf8"))
    expect(entry.signature).toBe(receiver.received[0].signature)
    expect(entry.time).toMatch(ISO_MS)
    expect((await call(base, "DELETE", "/_sandbox/webhooks", { apiKey: null })).body).toEqual([])
    expect((await call(base, "GET", "/_sandbox/webhooks", { apiKey: null })).body).toEqual([])
  })

  it("retries non-2xx answers with the configured backoff until one succeeds", async () => {
    receiver.answer = (n) => (n <= 2 ? 500 : 200)
    const tx = await create()
    await act(tx.id, "pay")
    const hooks = await receiver.waitFor(3)
    await sandbox.webhooksIdle()
    expect(hooks.map((h) => h.answeredWith)).toEqual([500, 500, 200])
    expect(new Set(hooks.map((h) => h.rawBody.toString("utf8"))).size).toBe(1)
    expectSigned(hooks)
    const log = sandbox.deliveries()
    expect(log.map((e) => [e.attempt, e.responseStatus])).toEqual([
      [1, 500],
      [2, 500],
      [3, 200],
    ])
    expect(new Set(log.map((e) => e.deliveryId)).size).toBe(1)
  })

  it("gives up after the retry schedule is exhausted, also on network errors", async () => {
    receiver.answer = () => 503
    const tx = await create()
    await act(tx.id, "pay")
    await receiver.waitFor(3)
    await sandbox.webhooksIdle()
    expect(receiver.received).toHaveLength(3)
    expect(sandbox.deliveries().map((e) => e.attempt)).toEqual([1, 2, 3])

    await call(base, "DELETE", "/_sandbox/webhooks", { apiKey: null })
    await call(base, "PUT", "/_sandbox/merchant", { apiKey: null, body: { webhookUrl: "http://127.0.0.1:9/unreachable", webhookRetryDelaysMs: [5] } })
    const other = await create({ fiatAmount: 77 })
    await act(other.id, "cancel")
    await sandbox.webhooksIdle()
    const log = sandbox.deliveries()
    expect(log).toHaveLength(2)
    expect(log.every((e) => e.responseStatus === null && typeof e.error === "string" && e.error.length > 0)).toBe(true)
    expect(log.map((e) => e.attempt)).toEqual([1, 2])
  })

  it("sends nothing when no webhook URL is configured", async () => {
    await call(base, "PUT", "/_sandbox/merchant", { apiKey: null, body: { webhookUrl: null } })
    const tx = await create()
    await act(tx.id, "pay")
    const repeat = await act(tx.id, "webhook", { repeat: 2 })
    expect(repeat.status).toBe(409)
    expect(repeat.body.code).toBe("WEBHOOK_URL_NOT_CONFIGURED")
    await sandbox.webhooksIdle()
    expect(sandbox.deliveries()).toHaveLength(0)
    expect(receiver.received).toHaveLength(0)
  })

  it("signs with the rotated key after an API key rotation", async () => {
    await call(base, "PUT", "/_sandbox/merchant", { apiKey: null, body: { apiKey: "new-key-after-rotation" } })
    const tx = (await call(base, "POST", "/payment/trading/pay-in", { body: payInBody(), apiKey: "new-key-after-rotation" })).body
    await act(tx.id, "pay")
    const [hook] = await receiver.waitFor(1)
    expectSigned([hook], "new-key-after-rotation")
    expect(hook.signature).not.toBe(hmacHex(hook.rawBody, API_KEY))
  })

  it("delivers in order by default and in a shuffled order in shuffled mode", async () => {
    const ids: string[] = []
    for (let i = 0; i < 8; i++) ids.push((await create({ fiatAmount: 100 + i })).id)
    for (const id of ids) await act(id, "pay")
    const ordered = await receiver.waitFor(8)
    expect(ordered.map((h) => h.body.id)).toEqual(ids)

    receiver.reset()
    await call(base, "PUT", "/_sandbox/merchant", { apiKey: null, body: { webhookMode: "shuffled", webhookShuffleWindowMs: 400 } })
    const shuffledIds: string[] = []
    for (let i = 0; i < 8; i++) shuffledIds.push((await create({ fiatAmount: 200 + i })).id)
    for (const id of shuffledIds) await act(id, "cancel")
    const shuffled = await receiver.waitFor(8)
    const got = shuffled.map((h) => h.body.id)
    expect([...got].sort()).toEqual([...shuffledIds].sort())
    expect(got).not.toEqual(shuffledIds)
    expectSigned(shuffled)
  })

  it("holds deliveries back in delayed mode", async () => {
    await call(base, "PUT", "/_sandbox/merchant", { apiKey: null, body: { webhookMode: "delayed", webhookDelayMs: 300 } })
    const tx = await create()
    await act(tx.id, "pay")
    await sleep(50)
    expect(sandbox.deliveries()).toHaveLength(0)
    expect(receiver.received).toHaveLength(0)
    const [hook] = await receiver.waitFor(1)
    expect(hook.body.status).toBe("closed")
  })
})
