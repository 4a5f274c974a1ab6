// Security review of the admin's settings (regressions): the write-only API key is bound to the
// base URL origin it was given for, base URLs typed in the admin cannot reach private addresses,
// their answers are not echoed, and `*.localhost` is not loopback. A real Medusa on PostgreSQL,
// two sandboxes over HTTP, and a local server standing for a host the key must never reach.
//
// Instance "default" is a production-like one (PAYIN_DEFAULT_ALLOW_PRIVATE_BASE_URL=false);
// instance "second" follows NODE_ENV (test: private addresses allowed, as on a developer's machine).
import http from "http"
import type { RunningSandbox } from "../../src/sandbox"
import { adminHeaders } from "../support/admin"
import { appSpec } from "../support/harness"
import { localHttpServer } from "../support/net"
import { twoSandboxesForApp } from "../support/sandbox"

jest.setTimeout(180_000)

const KEY = "settings-security-key-0123456789"
const SECOND_KEY = "settings-security-second-9876543210"
const SECRET = "settings-security-encryption-secret-0123456789"
process.env.PAYIN_ENCRYPTION_KEY = SECRET
process.env.PAYIN_DEFAULT_ALLOW_PRIVATE_BASE_URL = "false"

let sandbox: RunningSandbox
let second: RunningSandbox
twoSandboxesForApp({ default: KEY, second: SECOND_KEY }, (s) => {
  sandbox = s.default
  second = s.second
})

/** A host the stored key must never reach: records what it receives, answers what the test says. */
let evilRequests: { path: string; apiKey: string | undefined }[] = []
let evilAnswer: (res: http.ServerResponse) => void = (res) => res.end("[]")
const evil = localHttpServer((req, res) => {
  evilRequests.push({ path: req.url ?? "", apiKey: req.headers["x-api-key"] as string | undefined })
  evilAnswer(res)
})

afterAll(() => {
  delete process.env.PAYIN_DEFAULT_ALLOW_PRIVATE_BASE_URL
})

appSpec((h) => {
  const { api, getContainer, payin, sql } = h
  let admin: { headers: Record<string, string> }
  const logs: [string, string][] = []
  let originalLogger: unknown

  const call = async (method: "get" | "post", url: string, body?: unknown) => {
    const config = { ...admin, validateStatus: () => true }
    const res = method === "get" ? await api.get(url, config) : await api.post(url, body ?? {}, config)
    return { status: res.status as number, data: res.data as any }
  }
  const save = (id: string, body: unknown) => call("post", `/admin/payin/settings/${id}`, body)
  const test = (id: string, body: unknown) => call("post", `/admin/payin/settings/${id}/test-connection`, body)
  const view = async (id: string) => (await call("get", `/admin/payin/settings/${id}`)).data
  const origin = (url: string) => new URL(url).origin

  beforeEach(async () => {
    evilRequests = []
    evilAnswer = (res) => res.end("[]")
    sandbox.updateMerchant({ apiKey: KEY, whitelist: [] })
    second.updateMerchant({ apiKey: SECOND_KEY, whitelist: [] })
    admin = await adminHeaders(getContainer(), api)
    logs.length = 0
    originalLogger = payin().settings.logger
    payin().settings.logger = { info: (m: string) => logs.push(["info", m]), warn: (m: string) => logs.push(["warn", m]) }
  })

  afterEach(async () => {
    payin().settings.logger = originalLogger
    await sql("delete from payin_setting")
    await h.reloadSettings()
  })

  it("finding 1: a base URL of another origin is saved only with the API key; the saved key never goes there", async () => {
    // the attack: save a new base URL alone, then let the next call carry the stored key to it
    const moved = await save("second", { baseUrl: evil.url })
    expect(moved.status).toBe(400)
    expect(moved.data.fields).toEqual([expect.objectContaining({ path: "apiKey", code: "api_key_required" })])
    expect(moved.data.message).toMatch(/apiKey: .*enter the API key/)
    expect((await view("second")).values.baseUrl).toBe(second.url)
    // every outgoing call still goes to the saved base URL
    expect((await test("second", {})).data.ok).toBe(true)
    expect(await payin().clients.withClient("second", (c: any) => c.listBanks())).not.toHaveLength(0)
    expect(evilRequests).toEqual([])

    // another path on the same origin needs no key
    expect((await save("second", { baseUrl: `${second.url}/v1` })).status).toBe(200)
    expect((await save("second", { baseUrl: null })).status).toBe(200)

    // a key saved from the admin is bound to the origin it was entered for
    expect((await save("second", { apiKey: SECOND_KEY })).status).toBe(200)
    const again = await save("second", { baseUrl: evil.url })
    expect(again.status).toBe(400)
    expect(again.data.fields).toEqual([expect.objectContaining({ path: "apiKey", code: "api_key_required" })])
    expect(again.data.message).toMatch(/entered again when the base URL's origin changes/)

    // with the key in the same save, the key typed is the one that goes there
    const typed = "typed-for-the-new-origin-1234"
    const saved = await save("second", { baseUrl: evil.url, apiKey: typed })
    expect(saved.status).toBe(200)
    expect(saved.data.values.baseUrl).toBe(evil.url)
    await test("second", {})
    expect(evilRequests.length).toBeGreaterThan(0)
    expect(evilRequests.every((r) => r.apiKey === typed)).toBe(true)
    // removing that key would put medusa-config's key in effect at the new origin: refused
    const fallback = await save("second", { apiKey: null })
    expect(fallback.status).toBe(400)
    expect(fallback.data.fields).toEqual([expect.objectContaining({ path: "apiKey", code: "api_key_required" })])
    expect((await save("second", { baseUrl: null, apiKey: null })).status).toBe(200)
    expect(evilRequests.map((r) => r.apiKey)).not.toContain(SECOND_KEY)

    // every origin change is logged, never a key
    const changes = logs.filter(([, m]) => /base URL of provider instance "second" moved/.test(m)).map(([, m]) => m)
    expect(changes).toEqual([
      expect.stringContaining(`from ${origin(second.url)} to ${origin(evil.url)}`),
      expect.stringContaining(`from ${origin(evil.url)} to ${origin(second.url)}`),
    ])
    for (const [, m] of logs) for (const key of [SECOND_KEY, typed, KEY]) expect(m).not.toContain(key)
  })

  it("finding 1: when medusa-config moves the base URL, the key saved from the admin is not sent there", async () => {
    const ROTATED = "settings-security-rotated-ABCDEFGH"
    second.updateMerchant({ apiKey: ROTATED })
    expect((await save("second", { apiKey: ROTATED })).status).toBe(200)
    expect((await test("second", {})).data.ok).toBe(true)

    // medusa-config / the environment now gives another base URL (a redeploy)
    const config = payin().settings.configuredProvider("second")
    const configured = config.baseUrl
    config.baseUrl = evil.url
    try {
      await sql("update payin_setting set revision = revision + 1 where scope = 'provider:second'")
      await h.reloadSettings()
      const settings = await view("second")
      expect(settings.values.baseUrl).toBe(evil.url)
      expect(settings.configured).toBe(false)
      expect(settings.api_key).toMatchObject({ set: false, source: "admin" })
      expect(settings.api_key.error).toMatch(new RegExp(`entered for ${origin(second.url)}.*enter the API key again`))
      const tested = await test("second", {})
      expect(tested.data).toMatchObject({ ok: false, error: { kind: "not_configured" } })
      expect(tested.data.error.message).toMatch(/enter the API key again/)
      await expect(payin().clients.withClient("second", (c: any) => c.listBanks())).rejects.toThrow(/no API key/)
      expect(evilRequests).toEqual([])
      expect(logs.some(([level, m]) => level === "warn" && /"second" has no usable API key/.test(m))).toBe(true)
      expect(JSON.stringify(logs)).not.toContain(ROTATED)

      // saving the key again binds it to the new origin
      const resaved = await save("second", { apiKey: "the-key-for-the-new-origin-99" })
      expect(resaved.data.api_key).toMatchObject({ set: true, error: null })
    } finally {
      config.baseUrl = configured
    }
  })

  it("finding 1: a key saved before keys were bound is bound to the origin in effect when first read", async () => {
    const encrypted = payin().settings.secretBox.encrypt(SECOND_KEY, "provider:second")
    await sql(
      `insert into payin_setting (id, scope, values, revision, api_key_encrypted, api_key_last4)
       values ('payinset_legacy', 'provider:second', '{}'::jsonb, 1, ?, ?)`,
      [encrypted, SECOND_KEY.slice(-4)]
    )
    await h.reloadSettings()
    expect((await view("second")).api_key).toMatchObject({ set: true, source: "admin" })
    const { rows } = await sql("select values from payin_setting where scope = 'provider:second'")
    expect(rows[0].values).toEqual({ $apiKeyOrigin: origin(second.url) })
    expect((await save("second", { baseUrl: evil.url })).status).toBe(400)
    expect(evilRequests).toEqual([])
  })

  it("finding 2: a base URL typed in the admin may not reach private, loopback, link-local or metadata addresses", async () => {
    const port = new URL(evil.url).port
    const refused = [
      evil.url, // http://127.0.0.1:<port>
      `http://localhost:${port}`,
      `http://[::1]:${port}`,
      "https://10.0.0.1",
      "https://172.16.5.4",
      "https://192.168.1.10",
      "https://169.254.169.254",
      "https://[::ffff:a9fe:a9fe]",
      "https://[fd00:ec2::254]",
      "https://[fe80::1]",
      "https://0.0.0.0",
      "https://[::]",
      "https://foo.localhost",
      "https://metadata.google.internal",
    ]
    for (const baseUrl of refused) {
      const tested = await test("default", { baseUrl, apiKey: "typed-key-0123456789" })
      expect([baseUrl, tested.status]).toEqual([baseUrl, 400])
      expect(tested.data.fields).toEqual([expect.objectContaining({ path: "baseUrl", code: "base_url_not_allowed" })])
      const saved = await save("default", { baseUrl, apiKey: "typed-key-0123456789" })
      expect([baseUrl, saved.status]).toEqual([baseUrl, 400])
      expect(saved.data.fields).toEqual([expect.objectContaining({ path: "baseUrl", code: "base_url_not_allowed" })])
    }
    expect(evilRequests).toEqual([])
    const settings = await view("default")
    expect(settings.values.baseUrl).toBe(sandbox.url)
    expect(settings.overrides).toEqual({})
    // medusa-config's own base URL stays testable (another path, same origin)
    expect((await test("default", { baseUrl: `${sandbox.url}/`, apiKey: KEY })).data.ok).toBe(true)
    // the instance marked as a development one (NODE_ENV test here) may use this machine
    expect((await test("second", { baseUrl: evil.url, apiKey: "typed-key-0123456789" })).status).toBe(200)
    expect(evilRequests.length).toBeGreaterThan(0)
  })

  it("finding 2: nothing of a typed URL's answer comes back, and a huge answer is not read", async () => {
    const marker = "INTERNAL-SERVICE-TEXT"
    evilAnswer = (res) => {
      res.writeHead(418, { "content-type": "application/json" })
      res.end(JSON.stringify({ code: `${marker}_CODE`, message: `${marker}: internal details`, ip: "10.9.8.7" }))
    }
    const refused = await test("second", { baseUrl: evil.url, apiKey: "typed-key-0123456789" })
    expect(refused.status).toBe(200)
    expect(refused.data).toMatchObject({ ok: false, error: { kind: "validation", status: 418 } })
    expect(JSON.stringify(refused.data)).not.toContain(marker)
    expect(refused.data.error.code).toBeUndefined()

    evilAnswer = (res) => {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify([{ name: marker.repeat(200_000), methods: ["card"] }])) // ~4 MB
    }
    const huge = await test("second", { baseUrl: evil.url, apiKey: "typed-key-0123456789" })
    expect(huge.data).toMatchObject({ ok: false, error: { kind: "response_too_large" } })
    expect(JSON.stringify(huge.data)).not.toContain(marker)
  })

  it("finding 3: http://foo.localhost is not loopback: the key is not sent to it over plain http", async () => {
    for (const baseUrl of ["http://foo.localhost:4010", "http://pay.localhost"]) {
      const saved = await save("second", { baseUrl, apiKey: "typed-key-0123456789" })
      expect([baseUrl, saved.status]).toEqual([baseUrl, 400])
      expect(saved.data.fields.map((f: any) => f.path)).toContain("baseUrl")
      expect(saved.data.message).toMatch(/https/)
      expect((await test("second", { baseUrl, apiKey: "typed-key-0123456789" })).status).toBe(400)
    }
    expect((await view("second")).values.baseUrl).toBe(second.url)
  })
})
