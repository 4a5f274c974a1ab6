// The service client against the sandbox over real HTTP (and a misbehaving local server).
import { createHmac } from "crypto"
import http from "http"
import { AddressInfo } from "net"
import { PayinClient, closePayinPools } from "../../src/client/client"
import { PayinServiceError } from "../../src/client/errors"
import type { RunningSandbox } from "../../src/sandbox"
import { startTestSandbox } from "../support/sandbox"

const KEY = "client-spec-key-0123456789"
let sandbox: RunningSandbox
let odd: http.Server
let oddUrl: string
let lastOddRequest: { headers: http.IncomingHttpHeaders; body: string } | null = null
let oddAnswer: { status: number; body: string } = { status: 200, body: "{}" }

beforeAll(async () => {
  sandbox = await startTestSandbox(KEY)
  odd = http.createServer((req, res) => {
    let body = ""
    req.on("data", (c) => (body += c))
    req.on("end", () => {
      lastOddRequest = { headers: req.headers, body }
      res.writeHead(oddAnswer.status, { "content-type": "application/json" })
      res.end(oddAnswer.body)
    })
  })
  await new Promise<void>((r) => odd.listen(0, "127.0.0.1", r))
  oddUrl = `http://127.0.0.1:${(odd.address() as AddressInfo).port}`
})

afterAll(async () => {
  await sandbox.close()
  await new Promise((r) => odd.close(r))
  await closePayinPools()
})

beforeEach(() => {
  sandbox.core.reset()
  sandbox.updateMerchant({ apiKey: KEY, whitelist: [] })
})

const client = (over: Partial<ConstructorParameters<typeof PayinClient>[0]> = {}) =>
  new PayinClient({ baseUrl: sandbox.url, apiKey: KEY, timeoutMs: 1000, backoffMs: 20, ...over })

async function caught(promise: Promise<unknown>): Promise<PayinServiceError> {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(PayinServiceError)
    return error as PayinServiceError
  }
  throw new Error("expected a PayinServiceError")
}

const body = (externalTransactionId = `ext-${Math.random()}`) => ({
  fiatAmount: 1500,
  fiatCurrency: "RUB",
  extra: { externalTransactionId },
})

describe("PayinClient", () => {
  it("creates and looks up pay-ins, parsed with the shared schemas", async () => {
    const c = client()
    const created = await c.createPayInOnce(body("ext-1"))
    expect(created).toMatchObject({ status: "active", fiatAmount: "1500.00", fiatCurrency: "RUB" })
    expect((await c.getTransaction(created.id)).id).toBe(created.id)
    expect((await c.getTransactionByExternalId("ext-1")).id).toBe(created.id)
    expect(await c.findByExternalId("nope")).toBeNull()
    expect((await c.listBanks()).map((b) => b.name)).toContain("sberbank")
    expect((await c.listCurrencies()).some((cur) => cur.fiatCurrency === "RUB")).toBe(true)
  })

  it("types the service's refusals; no message carries the key", async () => {
    const unauthorized = await caught(client({ apiKey: "wrong-key-00000000" }).listBanks())
    expect(unauthorized.kind).toBe("unauthorized")
    expect(unauthorized.status).toBe(401)

    sandbox.updateMerchant({ whitelist: ["203.0.113.0/24"] })
    const blocked = await caught(client().listBanks())
    expect(blocked.kind).toBe("ip_not_whitelisted")
    expect(blocked.code).toBe("MERCHANT_IP_NOT_WHITELISTED")
    expect(blocked.message).toMatch(/add the outgoing IP address/)
    sandbox.updateMerchant({ whitelist: [] })

    const invalid = await caught(client().createPayInOnce({ fiatCurrency: "RUB" } as never))
    expect(invalid.kind).toBe("validation")
    expect(invalid.status).toBe(400)

    const missing = await caught(client().getTransaction("00000000-0000-4000-8000-000000000000"))
    expect(missing.kind).toBe("not_found")

    for (const e of [unauthorized, blocked, invalid, missing]) {
      expect(`${e.message} ${JSON.stringify(e.details)}`).not.toContain(KEY)
    }
  })

  it("reports exhausted requisites as their own error", async () => {
    const c = client()
    let error: PayinServiceError | null = null
    for (let i = 0; i < 10 && !error; i++) {
      await c.createPayInOnce({ ...body(), bank: "vtb", method: "link" }).catch((e) => (error = e))
    }
    expect(error!.kind).toBe("requisites_unavailable")
  })

  it("retries GETs with backoff, within a bound", async () => {
    const created = await client().createPayInOnce(body())
    sandbox.setFaults([{ route: "GET /payment/trading/{id}", status: 503, count: 2 }])
    expect((await client().getTransaction(created.id)).id).toBe(created.id)

    sandbox.setFaults([{ route: "GET /payment/trading/{id}", status: 503, count: 5 }])
    const failed = await caught(client({ getAttempts: 3 }).getTransaction(created.id))
    expect(failed.kind).toBe("server")
    expect(sandbox.core.faults.list()[0].count).toBe(2) // 3 attempts used 3 of the 5
  })

  it("never re-sends the POST blindly: createPayInOnce does not retry, createPayIn looks up first", async () => {
    sandbox.setFaults([{ route: "POST /payment/trading/pay-in", status: 502, count: 1 }])
    const once = await caught(client().createPayInOnce(body("ext-once")))
    expect(once).toMatchObject({ kind: "server", ambiguous: true })
    expect(sandbox.transactions()).toHaveLength(0)

    sandbox.setFaults([{ route: "POST /payment/trading/pay-in", reset: true, count: 1 }])
    const created = await client().createPayIn(body("ext-reset"), "ext-reset")
    expect(created.extra.externalTransactionId).toBe("ext-reset")
    expect(sandbox.transactions()).toHaveLength(1)

    // the POST went through but its answer was lost (delay beyond the timeout): found by lookup
    sandbox.setFaults([{ route: "POST /payment/trading/pay-in", delayMs: 600, count: 1 }])
    const slow = await client({ timeoutMs: 300 }).createPayIn(body("ext-slow"), "ext-slow")
    await new Promise((r) => setTimeout(r, 500))
    expect(slow.extra.externalTransactionId).toBe("ext-slow")
    expect(sandbox.transactions().filter((t) => t.extra.externalTransactionId === "ext-slow")).toHaveLength(1)
  })

  it("times out every call", async () => {
    sandbox.setFaults([{ route: "GET /payment/trading/banks", delayMs: 800 }])
    const error = await caught(client({ timeoutMs: 200, getAttempts: 1 }).listBanks())
    expect(error).toMatchObject({ kind: "timeout", ambiguous: true })
  })

  it("turns malformed answers into typed errors", async () => {
    const c = new PayinClient({ baseUrl: oddUrl, apiKey: KEY, getAttempts: 1 })
    oddAnswer = { status: 200, body: '{"id": 5}' }
    expect((await caught(c.getTransaction("x"))).kind).toBe("malformed_response")
    oddAnswer = { status: 200, body: "<html>oops</html>" }
    expect((await caught(c.listBanks())).kind).toBe("malformed_response")
    oddAnswer = { status: 500, body: "not json" }
    expect((await caught(c.listBanks())).kind).toBe("server")
    oddAnswer = { status: 200, body: JSON.stringify({ data: [{ name: "x", methods: ["card"] }] }) }
    expect(await c.listBanks()).toEqual([{ name: "x", methods: ["card"] }])
  })

  it("signs request bodies with the API key unless told not to", async () => {
    oddAnswer = { status: 400, body: JSON.stringify({ statusCode: 400, code: "X", message: "no" }) }
    const payload = body("ext-sign")
    await caught(new PayinClient({ baseUrl: oddUrl, apiKey: KEY }).createPayInOnce(payload))
    const expected = createHmac("sha256", KEY).update(lastOddRequest!.body).digest("hex")
    expect(lastOddRequest!.headers["x-signature"]).toBe(expected)
    expect(lastOddRequest!.headers["x-api-key"]).toBe(KEY)
    expect(JSON.parse(lastOddRequest!.body)).toEqual(payload)

    await caught(new PayinClient({ baseUrl: oddUrl, apiKey: KEY, signRequests: false }).createPayInOnce(payload))
    expect(lastOddRequest!.headers["x-signature"]).toBeUndefined()
  })
})
