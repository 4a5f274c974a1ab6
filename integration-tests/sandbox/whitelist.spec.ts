import { startSandbox, type RunningSandbox } from "../../src/sandbox"
import { API_KEY, call, payInBody } from "./helpers"

// The sandbox binds dual-stack ("::"); the tests reach it from 127.0.0.1 (IPv4, seen as
// ::ffff:127.0.0.1) and from ::1 (IPv6) to exercise both families.
describe("sandbox IP whitelist", () => {
  let sandbox: RunningSandbox
  let v4: string
  let v6: string

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, host: "::", apiKey: API_KEY })
    v4 = `http://127.0.0.1:${sandbox.port}`
    v6 = `http://[::1]:${sandbox.port}`
  })

  afterAll(async () => {
    await sandbox.close()
  })

  async function setWhitelist(whitelist: string[]) {
    const res = await call(v4, "PUT", "/_sandbox/merchant", { apiKey: null, body: { whitelist } })
    expect(res.status).toBe(200)
    expect(res.body.whitelist).toEqual(whitelist)
  }

  async function statusFrom(base: string, apiKey: string = API_KEY) {
    return call(base, "GET", "/payment/trading/banks", { apiKey })
  }

  function expectForbidden(res: { status: number; body: any }) {
    expect(res.status).toBe(403)
    expect(res.body).toEqual({ statusCode: 403, code: "MERCHANT_IP_NOT_WHITELISTED", message: expect.any(String) })
  }

  it("applies no restriction when the list is empty", async () => {
    await setWhitelist([])
    expect((await statusFrom(v4)).status).toBe(200)
    expect((await statusFrom(v6)).status).toBe(200)
  })

  it("accepts a listed IPv4 address and rejects the unlisted IPv6 peer", async () => {
    await setWhitelist(["127.0.0.1"])
    expect((await statusFrom(v4)).status).toBe(200)
    expectForbidden(await statusFrom(v6))
  })

  it("accepts a listed IPv6 address and rejects the unlisted IPv4 peer", async () => {
    await setWhitelist(["::1"])
    expect((await statusFrom(v6)).status).toBe(200)
    expectForbidden(await statusFrom(v4))
  })

  it("matches IPv4 and IPv6 CIDR ranges", async () => {
    await setWhitelist(["127.0.0.0/8"])
    expect((await statusFrom(v4)).status).toBe(200)
    expectForbidden(await statusFrom(v6))
    await setWhitelist(["::1/128"])
    expect((await statusFrom(v6)).status).toBe(200)
    expectForbidden(await statusFrom(v4))
    await setWhitelist(["10.0.0.0/8", "fd00::/8", "192.0.2.7"])
    expectForbidden(await statusFrom(v4))
    expectForbidden(await statusFrom(v6))
    await setWhitelist(["10.0.0.0/8", "127.0.0.0/30", "::1"])
    expect((await statusFrom(v4)).status).toBe(200)
    expect((await statusFrom(v6)).status).toBe(200)
  })

  it("guards every service route, creation included, and checks the key first", async () => {
    await setWhitelist(["192.0.2.0/24"])
    const before = sandbox.transactions().length
    expectForbidden(await call(v4, "POST", "/payment/trading/pay-in", { body: payInBody() }))
    expectForbidden(await call(v6, "GET", "/payment/trading/currency"))
    expectForbidden(await call(v4, "GET", "/payment/trading/external/x"))
    expectForbidden(await call(v4, "POST", "/payment/trading/pay-out", { body: {} }))
    expect(sandbox.transactions().length).toBe(before)
    // A wrong key from an unlisted address is a 401: the key is checked before the address.
    const wrongKey = await statusFrom(v4, "wrong")
    expect(wrongKey.status).toBe(401)
    expect(wrongKey.body.code).toBe("INVALID_API_KEY")
  })

  it("does not apply to the control API or the hosted page", async () => {
    await setWhitelist([])
    const tx = (await call(v4, "POST", "/payment/trading/pay-in", { body: payInBody() })).body
    await setWhitelist(["192.0.2.1"])
    expect((await call(v6, "GET", "/_sandbox/transactions", { apiKey: null })).status).toBe(200)
    expect((await call(v4, "GET", `/pay/${tx.id}`, { apiKey: null })).status).toBe(200)
    await setWhitelist([])
  })

  it("rejects invalid entries with 400 and keeps the previous list", async () => {
    await setWhitelist(["127.0.0.1"])
    for (const entry of ["300.1.1.1", "10.0.0.0/33", "::1/129", "example.com", "1.2.3.4/abc"]) {
      const res = await call(v4, "PUT", "/_sandbox/merchant", { apiKey: null, body: { whitelist: [entry] } })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe("VALIDATION_ERROR")
    }
    expect(sandbox.merchant().whitelist).toEqual(["127.0.0.1"])
    expectForbidden(await statusFrom(v6))
    await setWhitelist([])
  })

  it("takes the whitelist from the start options too", async () => {
    const other = await startSandbox({ port: 0, host: "::", apiKey: API_KEY, whitelist: ["::1"] })
    try {
      expect((await statusFrom(`http://[::1]:${other.port}`)).status).toBe(200)
      expectForbidden(await statusFrom(`http://127.0.0.1:${other.port}`))
    } finally {
      await other.close()
    }
    await expect(startSandbox({ port: 0, apiKey: API_KEY, whitelist: ["nonsense"] })).rejects.toThrow(/whitelist/)
  })
})
