// The service client against the sandbox over real HTTP (and a misbehaving local server).
import { createHmac } from "crypto"
import http from "http"
import { AddressInfo } from "net"
import { type AroundCall, type CallObservation, aroundAll, observeCalls } from "../../src/client/calls"
import { PayinClient, closePayinPools } from "../../src/client/client"
import { PayinServiceError } from "../../src/client/errors"
import type { RunningSandbox } from "../../src/sandbox"
import { localHttpServer } from "../support/net"
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

describe("PayinClient: deadline, answer size, addresses (security review)", () => {
  /** A server on this machine whose handler the test sets; counts the requests it got. */
  let handler: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => res.end("{}")
  let hits = 0
  const server = localHttpServer((req, res) => {
    hits++
    handler(req, res)
  })
  beforeEach(() => {
    hits = 0
  })

  it("the timeout is a deadline for the whole exchange: a body trickled a byte at a time is cut at timeoutMs", async () => {
    const timers: NodeJS.Timeout[] = []
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" })
      const text = JSON.stringify([{ name: "slow-bank", methods: ["card"] }])
      let i = 0
      const tick = setInterval(() => {
        if (i >= text.length || res.destroyed) {
          clearInterval(tick)
          if (!res.destroyed) res.end()
          return
        }
        res.write(text[i++])
      }, 250) // ~45 bytes over ~11 s: never idle for as long as timeoutMs
      timers.push(tick)
      res.on("close", () => clearInterval(tick))
    }
    const started = Date.now()
    const error = await caught(new PayinClient({ baseUrl: server.url, apiKey: KEY, timeoutMs: 2500, getAttempts: 1, ownPool: true }).listBanks())
    const elapsed = Date.now() - started
    timers.forEach(clearInterval)
    expect(error).toMatchObject({ kind: "timeout", ambiguous: true })
    expect(elapsed).toBeLessThan(4000)
    expect(elapsed).toBeGreaterThanOrEqual(2400)
  })

  describe("one deadline per call, 2 × timeoutMs (silent service: takes the request, never answers)", () => {
    let got: string[] = []
    const silentFor = (answer?: (req: http.IncomingMessage, res: http.ServerResponse) => void) => {
      got = []
      handler = (req, res) => {
        got.push(req.method!)
        answer?.(req, res)
      }
    }
    const timed = (over: Partial<ConstructorParameters<typeof PayinClient>[0]> = {}) =>
      new PayinClient({ baseUrl: server.url, apiKey: KEY, timeoutMs: 300, backoffMs: 20, createAttempts: 3, getAttempts: 3, ownPool: true, ...over })

    it("a checkout sends the POST and the lookup that fits, then reports its outcome unknown", async () => {
      silentFor()
      const c = timed()
      const error = await caught(c.createPayIn(body("ext-silent"), "ext-silent"))
      await c.close()
      // without it: the POST, then 3 lookups of timeoutMs each (and 3 POSTs given the time)
      expect(got).toEqual(["POST", "GET"])
      expect(error).toMatchObject({ kind: "timeout", ambiguous: true })
      expect(error.message).toMatch(/GET \/payment\/trading\/external\/ext-silent within the deadline of creating the pay-in \(600 ms, 2 × timeoutMs\)/)
    })

    it("a POST re-sent after a lookup found nothing gets what is left, and its unknown outcome is reported", async () => {
      silentFor((req, res) => {
        if (req.method === "GET") {
          res.writeHead(404, { "content-type": "application/json" })
          res.end(JSON.stringify({ statusCode: 404, message: "not found" }))
        }
      })
      const c = timed()
      const error = await caught(c.createPayIn(body("ext-none"), "ext-none"))
      await c.close()
      expect(got).toEqual(["POST", "GET", "POST"])
      expect(error).toMatchObject({ kind: "timeout", ambiguous: true })
      expect(error.message).toMatch(/POST \/payment\/trading\/pay-in within the deadline of creating the pay-in/)
    })

    it("GET retries stop at the deadline", async () => {
      silentFor()
      const c = timed({ getAttempts: 5 })
      const error = await caught(c.listBanks())
      await c.close()
      expect(got).toEqual(["GET", "GET"])
      expect(error).toMatchObject({ kind: "timeout" })
      expect(error.message).toMatch(/within the deadline of listing the banks \(600 ms, 2 × timeoutMs\)/)
    })

    it("a lookup that fails after a POST of unknown outcome leaves it unknown", async () => {
      silentFor((req, res) => {
        res.writeHead(req.method === "POST" ? 502 : 401, { "content-type": "application/json" })
        res.end(JSON.stringify({ statusCode: res.statusCode, message: "no" }))
      })
      const c = timed()
      const error = await caught(c.createPayIn(body("ext-502"), "ext-502"))
      await c.close()
      expect(got).toEqual(["POST", "GET"])
      expect(error).toMatchObject({ kind: "server", status: 502, ambiguous: true })
    })
  })

  it("caps the answer's size: a huge answer fails with a typed error, unread, none of its text in the error", async () => {
    const marker = "HUGE-ANSWER-TEXT-"
    const chunk = JSON.stringify({ code: "X", message: marker.repeat(4000) })
    for (const declared of [true, false]) {
      let written = 0
      handler = (_req, res) => {
        const total = 50 * 1024 * 1024
        res.writeHead(500, { "content-type": "application/json", ...(declared ? { "content-length": String(total) } : {}) })
        const pump = () => {
          while (written < total && !res.destroyed) {
            written += chunk.length
            if (!res.write(chunk)) return void res.once("drain", pump)
          }
          if (!res.destroyed) res.end()
        }
        res.on("close", () => (written = Math.max(written, 0)))
        pump()
      }
      const error = await caught(
        new PayinClient({ baseUrl: server.url, apiKey: KEY, timeoutMs: 10_000, getAttempts: 1, ownPool: true }).listBanks()
      )
      expect([declared, error.kind]).toEqual([declared, "response_too_large"])
      expect(`${error.message} ${JSON.stringify(error.details)}`).not.toContain(marker)
      expect(error.message).toMatch(/exceeded 1048576 bytes/)
      // the read stopped early: far less than the 50 MB was sent
      expect(written).toBeLessThan(20 * 1024 * 1024)
    }
    // a smaller cap can be set
    handler = (_req, res) => res.end(JSON.stringify([{ name: "x".repeat(2000), methods: ["card"] }]))
    const small = await caught(new PayinClient({ baseUrl: server.url, apiKey: KEY, getAttempts: 1, maxResponseBytes: 1000 }).listBanks())
    expect(small.kind).toBe("response_too_large")
  })

  it("quotes nothing of an answer that is not the service's (a URL typed in the admin)", async () => {
    const marker = "INTERNAL-PAGE-TEXT"
    handler = (_req, res) => {
      res.writeHead(418, { "content-type": "application/json" })
      res.end(JSON.stringify({ code: `${marker}-CODE`, message: `${marker} secret`, detail: marker }))
    }
    const typed = new PayinClient({ baseUrl: server.url, apiKey: KEY, getAttempts: 1, quoteAnswers: false })
    const refused = await caught(typed.listBanks())
    expect(refused).toMatchObject({ kind: "validation", status: 418 })
    expect(`${refused.message} ${JSON.stringify(refused.details)}`).not.toContain(marker)
    handler = (_req, res) => res.end(JSON.stringify({ [marker]: marker }))
    const odd = await caught(typed.getTransaction("x"))
    expect(odd.kind).toBe("malformed_response")
    expect(`${odd.message} ${JSON.stringify(odd.details)}`).not.toContain(marker)
    // the configured service's own message is still quoted
    handler = (_req, res) => {
      res.writeHead(400, { "content-type": "application/json" })
      res.end(JSON.stringify({ code: "BAD", message: "fiatAmount is required" }))
    }
    expect((await caught(new PayinClient({ baseUrl: server.url, apiKey: KEY }).listBanks())).message).toContain("fiatAmount is required")
  })

  it("refuses private, loopback and link-local addresses when told to, before connecting", async () => {
    const port = new URL(server.url).port
    for (const baseUrl of [
      server.url,
      `http://localhost:${port}`,
      `http://foo.localhost:${port}`,
      `http://[::1]:${port}`,
      `https://[::ffff:a9fe:a9fe]/`,
      `https://169.254.169.254/`,
      `https://10.1.2.3/`,
      `https://0.0.0.0/`,
      `https://[::]/`,
      `https://[fe80::1]/`,
      `https://[fd00:ec2::254]/`,
      `https://metadata.google.internal/`,
    ]) {
      const error = await caught(new PayinClient({ baseUrl, apiKey: KEY, getAttempts: 1, refusePrivateAddresses: true }).listBanks())
      expect([baseUrl, error.kind]).toEqual([baseUrl, "address_not_allowed"])
      expect(error.message).not.toContain(KEY)
    }
    expect(hits).toBe(0)
    // without the guard (the configured service on this machine) the same server is reached
    handler = (_req, res) => res.end("[]")
    expect(await new PayinClient({ baseUrl: server.url, apiKey: KEY }).listBanks()).toEqual([])
    expect(hits).toBe(1)
  })
})


describe("PayinClient: the around hook (where the module plugs in its span and the health's counters)", () => {
  let answers: { status: number; body: unknown }[] = []
  const server = localHttpServer((_req, res) => {
    const answer = answers.shift() ?? { status: 200, body: [] }
    res.writeHead(answer.status, { "content-type": "application/json" })
    res.end(JSON.stringify(answer.body))
  })

  it("runs once around each public call, retries included, and sees its exchanges and last status; observers are told the outcome", async () => {
    const around: { operation: string; exchanges: number; lastStatus?: number; result: string }[] = []
    const outermost: AroundCall = async (call, run) => {
      let result = "threw"
      try {
        const value = await run()
        result = "returned"
        return value
      } finally {
        around.push({ operation: call.operation, exchanges: call.exchanges, lastStatus: call.lastStatus, result })
      }
    }
    const observed: CallObservation[] = []
    const failing = observeCalls(() => {
      throw new Error("a broken observer")
    })
    const c = new PayinClient({
      baseUrl: server.url,
      apiKey: KEY,
      backoffMs: 1,
      getAttempts: 3,
      around: aroundAll(outermost, observeCalls((call) => observed.push(call)), failing),
    })

    answers = [{ status: 503, body: {} }, { status: 503, body: {} }, { status: 200, body: [] }]
    expect(await c.listBanks()).toEqual([])
    answers = [{ status: 403, body: { code: "MERCHANT_IP_NOT_WHITELISTED", message: "203.0.113.7 is not whitelisted" } }]
    expect((await caught(c.listCurrencies())).kind).toBe("ip_not_whitelisted")

    expect(around).toEqual([
      { operation: "list_banks", exchanges: 3, lastStatus: 200, result: "returned" },
      { operation: "list_currencies", exchanges: 1, lastStatus: 403, result: "threw" },
    ])
    expect(observed.map(({ ms, ...call }) => [call, ms >= 0])).toEqual([
      [{ operation: "list_banks", outcome: "ok", address: null }, true],
      [{ operation: "list_currencies", outcome: "ip_not_whitelisted", address: "203.0.113.7" }, true],
    ])
  })
})
