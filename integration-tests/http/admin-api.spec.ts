// The admin API (/admin/payin/...): authentication, validation, the write-only encrypted API key,
// settings in effect without a restart, test connection, transactions, reconcile now, the order
// view. A real Medusa on PostgreSQL and the sandbox over HTTP.
import { spawn } from "child_process"
import path from "path"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { sign } from "../../src/client/signature"
import { SecretBox } from "../../src/modules/payin/settings/secrets"
import { verifyStoredKeys } from "../../src/modules/payin/settings/verify-keys"
import type { RunningSandbox } from "../../src/sandbox"
import { storeSpec } from "../support/harness"
import { control, payinsOfSession } from "../support/sandbox"
import { Storefront } from "../support/storefront"

jest.setTimeout(180_000)

const KEY = "admin-spec-key-0123456789"
const ROTATED = "admin-spec-rotated-key-ABCDEFGH"
const SECRET = "test-encryption-secret-0123456789abcdef"

process.env.PAYIN_ENCRYPTION_KEY = SECRET

storeSpec({ key: KEY }, (h) => {
  const { api, getContainer } = h
  let sandbox: RunningSandbox, shop: Storefront, admin: { headers: Record<string, string> }
  beforeEach(() => void ({ sandbox, shop, admin } = h))

  /** Any status: the test reads 4xx answers too. */
  const call = async (method: "get" | "post", url: string, body?: unknown, auth = true) => {
    const config = { ...(auth ? admin : {}), validateStatus: () => true }
    const res = method === "get" ? await api.get(url, config) : await api.post(url, body ?? {}, config)
    return { status: res.status as number, data: res.data as any }
  }
  const pg = () => getContainer().resolve(ContainerRegistrationKeys.PG_CONNECTION) as any

  it("every route needs an admin session or token (401 without)", async () => {
    const routes: ["get" | "post", string][] = [
      ["get", "/admin/payin/settings"],
      ["post", "/admin/payin/settings"],
      ["get", "/admin/payin/settings/default"],
      ["post", "/admin/payin/settings/default"],
      ["post", "/admin/payin/settings/default/test-connection"],
      ["get", "/admin/payin/webhook-health"],
      ["get", "/admin/payin/transactions"],
      ["get", "/admin/payin/transactions/payintx_x"],
      ["post", "/admin/payin/transactions/payintx_x/reconcile"],
      ["get", "/admin/payin/orders/order_x"],
    ]
    for (const [method, url] of routes) {
      const res = await call(method, url, {}, false)
      expect([method, url, res.status]).toEqual([method, url, 401])
    }
    // with a token the same routes answer
    expect((await call("get", "/admin/payin/settings")).status).toBe(200)
  })

  it("shows every setting with its source, the key only masked", async () => {
    const { status, data } = await call("get", "/admin/payin/settings")
    expect(status).toBe(200)
    expect(data.encryption).toEqual({ configured: true, env: "PAYIN_ENCRYPTION_KEY" })
    expect(data.plugin.values.reconcileIntervalSeconds).toBe(300)
    expect(data.plugin.sources.reconcileIntervalSeconds).toBe("default")
    const provider = data.providers.find((p: any) => p.id === "default")
    expect(provider).toMatchObject({
      provider_id: "pp_payin_default",
      webhook_path: "/hooks/payin/default",
      webhook_url: expect.stringMatching(/^http:\/\/.+\/hooks\/payin\/default$/),
      configured: true,
      api_key: { set: true, last4: KEY.slice(-4), masked: `••••${KEY.slice(-4)}`, source: "config" },
      values: { baseUrl: sandbox.url, allowedRedirectOrigins: ["http://localhost:8000"], paymentWindowSeconds: 900 },
      sources: { apiKey: "config", baseUrl: "config", allowedRedirectOrigins: "config", paymentWindowSeconds: "default" },
    })
    expect(JSON.stringify(data)).not.toContain(KEY)
  })

  it("the webhook URL shown to the admin is never chosen by a forwarded header", async () => {
    const forged = { headers: { ...admin.headers, "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" }, validateStatus: () => true }
    const settings = await api.get("/admin/payin/settings", forged)
    const health = await api.get("/admin/payin/webhook-health", forged)
    const urls = [
      settings.data.providers.find((p: any) => p.id === "default").webhook_url,
      health.data.providers.find((p: any) => p.id === "default").webhook_url,
    ]
    for (const url of urls) {
      expect(url).toMatch(/\/hooks\/payin\/default$/)
      expect(url).not.toContain("evil.example")
    }
  })

  it("refuses invalid settings with a 400 that names the field, and changes nothing", async () => {
    const cases: [unknown, string][] = [
      [{ baseUrl: "not a url" }, "baseUrl"],
      [{ paymentPage: { successUrl: "ftp://shop.example.com/ok" } }, "paymentPage.successUrl"],
      [{ amountPolicy: { mode: "sometimes" } }, "amountPolicy.mode"],
      [{ amountPolicy: { mode: "range", tolerancePercent: 50 } }, "amountPolicy.tolerancePercent"],
      [{ allowedMethods: ["card", "pigeon"] }, "allowedMethods.1"],
      [{ allowedRedirectOrigins: ["https://shop.example.com/path"] }, "allowedRedirectOrigins.0"],
      [{ paymentWindowSeconds: 5 }, "paymentWindowSeconds"],
      [{ apiKey: "short" }, "apiKey"],
      [{ manualRefunds: "yes" }, "manualRefunds"],
      [{ colour: "blue" }, ""],
    ]
    for (const [body, field] of cases) {
      const res = await call("post", "/admin/payin/settings/default", body)
      expect([body, res.status]).toEqual([body, 400])
      expect(res.data.type).toBe("invalid_data")
      expect(res.data.fields.map((f: any) => f.path)).toContain(field)
      expect(typeof res.data.message).toBe("string")
    }
    const plugin = await call("post", "/admin/payin/settings", { reconcileIntervalSeconds: 5 })
    expect(plugin.status).toBe(400)
    expect(plugin.data.fields[0].path).toBe("reconcileIntervalSeconds")
    expect((await call("post", "/admin/payin/settings/nope", {})).status).toBe(404)

    const after = await call("get", "/admin/payin/settings/default")
    expect(after.data.overrides).toEqual({})
    const rows = await pg().raw("select count(*)::int as n from payin_setting")
    expect(rows.rows[0].n).toBe(0)
  })

  it("saves settings over medusa-config, shows their source, and null goes back", async () => {
    const saved = await call("post", "/admin/payin/settings/default", {
      paymentPage: { successUrl: "https://shop.example.com/thanks", locale: "ru" },
      manualRefunds: true,
      allowedMethods: ["card", "phone_number"],
    })
    expect(saved.status).toBe(200)
    expect(saved.data.values.paymentPage).toMatchObject({ successUrl: "https://shop.example.com/thanks", locale: "RU" })
    expect(saved.data.values.manualRefunds).toBe(true)
    expect(saved.data.sources).toMatchObject({
      "paymentPage.successUrl": "admin",
      "paymentPage.locale": "admin",
      "paymentPage.failureUrl": "default",
      manualRefunds: "admin",
      allowedMethods: "admin",
      baseUrl: "config",
    })

    // in effect at once, without a restart: a method the merchant no longer offers is refused
    const refused = await shop.sessionError(await shop.cart(), "pp_payin_default", { method: "qr" })
    expect(refused.status).toBe(400)
    expect(JSON.stringify(refused.data)).toContain("card, phone_number")
    const session = await shop.session(await shop.cart(), "pp_payin_default", { method: "card" })
    expect(session.data.method).toBe("card")

    const plugin = await call("post", "/admin/payin/settings", { reconcileIntervalSeconds: 600 })
    expect(plugin.status).toBe(200)
    expect(plugin.data.plugin).toMatchObject({ values: { reconcileIntervalSeconds: 600 }, sources: { reconcileIntervalSeconds: "admin" } })

    const reset = await call("post", "/admin/payin/settings/default", {
      paymentPage: { successUrl: null },
      manualRefunds: null,
      allowedMethods: null,
    })
    expect(reset.data.values.manualRefunds).toBe(false)
    expect(reset.data.values.paymentPage.successUrl).toBeUndefined()
    expect(reset.data.values.paymentPage.locale).toBe("RU")
    expect(reset.data.sources).toMatchObject({ manualRefunds: "config", "paymentPage.successUrl": "default", allowedMethods: "default" })
    expect(reset.data.overrides).toEqual({ paymentPage: { locale: "RU" } })
  })

  it("stores the API key encrypted, answers it masked, and a rotated key is used at once", async () => {
    // the merchant generates a new key in the panel: the old one stops working at the service
    sandbox.updateMerchant({ apiKey: ROTATED })
    const refused = await shop.sessionError(await shop.cart(), "pp_payin_default")
    expect(refused.status).toBeGreaterThanOrEqual(400)

    const saved = await call("post", "/admin/payin/settings/default", { apiKey: ROTATED })
    expect(saved.status).toBe(200)
    expect(saved.data.api_key).toMatchObject({ set: true, last4: ROTATED.slice(-4), masked: `••••${ROTATED.slice(-4)}`, source: "admin" })
    expect(saved.data.sources.apiKey).toBe("admin")
    expect(JSON.stringify(saved.data)).not.toContain(ROTATED)
    expect(JSON.stringify((await call("get", "/admin/payin/settings")).data)).not.toContain(ROTATED)

    // at rest: AES-256-GCM, not the key, bound to its row
    const { rows } = await pg().raw("select scope, values, api_key_encrypted, api_key_last4 from payin_setting")
    expect(rows).toHaveLength(1)
    expect(rows[0].scope).toBe("provider:default")
    expect(rows[0].api_key_encrypted).toMatch(/^v1\.[\w-]{8}\.[\w-]{16}\.[\w-]{22}\.[\w-]+$/)
    expect(rows[0].api_key_encrypted).not.toContain(ROTATED)
    expect(JSON.stringify(rows[0].values)).not.toContain(ROTATED)
    const box = new SecretBox({ PAYIN_ENCRYPTION_KEY: SECRET })
    expect(box.decrypt(rows[0].api_key_encrypted, "provider:default")).toBe(ROTATED)
    expect(() => box.decrypt(rows[0].api_key_encrypted, "provider:second")).toThrow(/integrity/)

    // the next pay-in uses the new key, without a restart
    const { cartId, session, payin } = await h.cartWithPayin()
    expect(payin.status).toBe("active")

    // webhooks signed with the new key are accepted, the old key's are refused
    const body = JSON.stringify({ ...payin, status: "closed" })
    const post = (key: string) =>
      api.post("/hooks/payin/default", body, {
        headers: { "content-type": "application/json", "x-signature": sign(body, key) },
        validateStatus: () => true,
        transformRequest: [(d: unknown) => d],
      })
    expect((await post(KEY)).status).toBe(401)
    await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/pay`)
    await h.deliver()
    const delivered = sandbox.deliveries().filter((d) => d.body.includes(payin.id))
    expect(delivered.at(-1)?.responseStatus).toBe(200)
    const detail = await call("get", `/admin/payin/transactions?q=${session.id}`)
    expect(detail.data.transactions[0].status).toBe("closed")

    // removing the admin's key goes back to medusa-config's
    const removed = await call("post", "/admin/payin/settings/default", { apiKey: null })
    expect(removed.data.api_key).toMatchObject({ source: "config", last4: KEY.slice(-4) })
  })

  it("a stored key that cannot be decrypted stops the start with a clear error", async () => {
    await call("post", "/admin/payin/settings/default", { apiKey: ROTATED })
    await expect(verifyStoredKeys(pg(), {})).rejects.toThrow(
      /"provider:default" cannot be used: PAYIN_ENCRYPTION_KEY is not set/
    )
    await expect(
      verifyStoredKeys(pg(), { PAYIN_ENCRYPTION_KEY: "another-secret-of-enough-length-0123456789" })
    ).rejects.toThrow(/encrypted with another PAYIN_ENCRYPTION_KEY/)
    // rotation of the secret: the old one as PAYIN_ENCRYPTION_KEY_PREVIOUS still decrypts
    const rotatedEnv = {
      PAYIN_ENCRYPTION_KEY: "another-secret-of-enough-length-0123456789",
      PAYIN_ENCRYPTION_KEY_PREVIOUS: SECRET,
    }
    await expect(verifyStoredKeys(pg(), rotatedEnv)).resolves.toBe(0)
    // at start-up the key moves to the new secret
    await expect(verifyStoredKeys(pg(), rotatedEnv, { reencrypt: true })).resolves.toBe(1)
    const { rows } = await pg().raw("select api_key_encrypted from payin_setting")
    expect(new SecretBox({ PAYIN_ENCRYPTION_KEY: rotatedEnv.PAYIN_ENCRYPTION_KEY }).decrypt(rows[0].api_key_encrypted, "provider:default")).toBe(ROTATED)

    // and a real start of this store without the secret fails with that message
    const config = getContainer().resolve(ContainerRegistrationKeys.CONFIG_MODULE) as any
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: config.projectConfig.databaseUrl, MEDUSA_ADMIN_DISABLE: "true" }
    delete env.PAYIN_ENCRYPTION_KEY
    const started = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(
        path.join(__dirname, "..", "..", "node_modules", ".bin", "medusa"),
        ["exec", "./seed/noop.ts"],
        { cwd: path.join(__dirname, "..", "app"), env, stdio: ["ignore", "pipe", "pipe"] }
      )
      let output = ""
      child.stdout.on("data", (d) => (output += d))
      child.stderr.on("data", (d) => (output += d))
      child.on("exit", (code) => resolve({ code, output }))
    })
    expect(started.output).toContain("PAYIN_ENCRYPTION_KEY is not set")
    expect(started.output).not.toContain("noop ran")
    expect(started.code).not.toBe(0)
  })

  it("tests the connection: success, a wrong key, and the whitelist with the address to add", async () => {
    const ok = await call("post", "/admin/payin/settings/default/test-connection", {})
    expect(ok.status).toBe(200)
    expect(ok.data).toMatchObject({ ok: true, base_url: sandbox.url })
    expect(ok.data.banks.length).toBeGreaterThan(0)
    expect(ok.data.banks[0]).toMatchObject({ name: expect.any(String), methods: expect.any(Array) })
    expect(ok.data.currencies.some((c: any) => c.fiatCurrency === "RUB")).toBe(true)

    const wrong = await call("post", "/admin/payin/settings/default/test-connection", { apiKey: "a-wrong-key-123456" })
    expect(wrong.data).toMatchObject({ ok: false, error: { kind: "unauthorized", status: 401 } })
    expect(JSON.stringify(wrong.data)).not.toContain("a-wrong-key-123456")

    sandbox.updateMerchant({ whitelist: ["203.0.113.0/24", "2001:db8::/32"] })
    const blocked = await call("post", "/admin/payin/settings/default/test-connection", {})
    expect(blocked.data).toMatchObject({
      ok: false,
      error: { kind: "ip_not_whitelisted", status: 403, code: "MERCHANT_IP_NOT_WHITELISTED" },
      outgoing_address: "127.0.0.1",
    })
    expect(blocked.data.error.message).toContain("whitelist")
    expect(Array.isArray(blocked.data.server_addresses)).toBe(true)

    // unsaved values are tested, not saved
    // the saved key never goes to a URL only typed in: another base URL needs the key too
    const keyless = await call("post", "/admin/payin/settings/default/test-connection", { baseUrl: "http://127.0.0.1:9" })
    expect(keyless.status).toBe(400)
    expect(keyless.data.fields).toEqual([expect.objectContaining({ path: "apiKey" })])
    const unreachable = await call("post", "/admin/payin/settings/default/test-connection", {
      baseUrl: "http://127.0.0.1:9",
      apiKey: "any-key-for-the-test-1234",
    })
    expect(unreachable.data).toMatchObject({ ok: false, base_url: "http://127.0.0.1:9", error: { kind: "network" } })
    expect((await call("get", "/admin/payin/settings/default")).data.values.baseUrl).toBe(sandbox.url)
    expect((await call("post", "/admin/payin/settings/default/test-connection", { baseUrl: "nope" })).status).toBe(400)
  })

  it("lists, filters and details the ledger; reconcile now applies a missed payment; the order view finds it", async () => {
    // a pay-in whose webhook never arrives
    sandbox.updateMerchant({ webhookUrl: null })
    const cartId = await shop.cart()
    const session = await shop.session(cartId, "pp_payin_default")
    const completed = await shop.complete(cartId)
    const orderId = completed.data.order.id
    const [payin] = payinsOfSession(sandbox, session.id)
    await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/pay`)

    // the order placed before payment is linked on the ledger at once (order.placed)
    const linked = async () =>
      (await call("get", "/admin/payin/transactions?status=active,creating")).data.transactions.find(
        (t: any) => t.session_id === session.id
      )?.order_id
    for (let i = 0; i < 50 && !(await linked()); i++) await new Promise((r) => setTimeout(r, 100))
    const active = await call("get", "/admin/payin/transactions?status=active,creating")
    expect(active.status).toBe(200)
    const row = active.data.transactions.find((t: any) => t.session_id === session.id)
    expect(row).toMatchObject({ status: "active", order_id: orderId, service_id: payin.id, amount: "1790.00", currency_code: "rub", fiat_amount: "1790.00" })
    expect(active.data.count).toBeGreaterThanOrEqual(1)
    expect((await call("get", "/admin/payin/transactions?status=closed")).data.transactions.map((t: any) => t.id)).not.toContain(row.id)
    expect((await call("get", "/admin/payin/transactions?status=paid")).status).toBe(400)
    expect((await call("get", "/admin/payin/transactions?limit=1000")).status).toBe(400)
    expect((await call("get", `/admin/payin/transactions?q=${payin.id}`)).data.transactions).toHaveLength(1)

    const widget = await call("get", `/admin/payin/orders/${orderId}`)
    expect(widget.data.transactions.map((t: any) => t.id)).toEqual([row.id])
    expect(widget.data.transactions[0]).toMatchObject({
      status: "active",
      requisite: { bank: expect.any(String), ownerName: expect.any(String), requisites: expect.any(String) },
      crypto_amount: expect.any(String),
      currency_rate: expect.any(String),
      merchant_fee: expect.any(String),
      dispute: null,
    })

    const reconciled = await call("post", `/admin/payin/transactions/${row.id}/reconcile`)
    expect(reconciled.status).toBe(200)
    expect(reconciled.data.result).toMatchObject({ found: true, changed: true, from: "active", to: "closed" })
    expect(reconciled.data.result.effects).toContain("captured")
    expect(reconciled.data.transaction).toMatchObject({ status: "closed", order_id: orderId })
    expect(reconciled.data.history.map((h: any) => [h.to_status, h.source])).toEqual([
      ["active", "create"],
      ["closed", "admin"],
    ])
    const { data: order } = await api.get(`/admin/orders/${orderId}?fields=payment_status`, admin)
    expect(order.order.payment_status).toBe("captured")

    // a dispute of an expired pay-in (paid late, a receipt supplied): reconcile shows it with its data
    const cart2 = await shop.cart()
    const session2 = await shop.session(cart2, "pp_payin_default")
    const [payin2] = payinsOfSession(sandbox, session2.id)
    await control(sandbox, "POST", `/_sandbox/transactions/${payin2.id}/expire`)
    await control(sandbox, "POST", `/_sandbox/transactions/${payin2.id}/dispute`, { fiatAmount: "1700.00" })
    const [row2] = (await call("get", `/admin/payin/transactions?q=${session2.id}`)).data.transactions
    const disputed = await call("post", `/admin/payin/transactions/${row2.id}/reconcile`)
    expect(disputed.data.result).toMatchObject({ from: "active", to: "dispute", changed: true })
    expect(disputed.data.transaction.dispute).toMatchObject({
      merchant_check_url: expect.stringContaining("/receipt"),
      merchant_fiat_amount: "1700.00",
    })
    expect((await call("get", "/admin/payin/transactions?status=dispute")).data.transactions.map((t: any) => t.id)).toEqual([row2.id])

    // webhook deliveries show on the detail
    sandbox.updateMerchant({ webhookUrl: `${api.defaults.baseURL}/hooks/payin/default` })
    await control(sandbox, "POST", `/_sandbox/transactions/${payin2.id}/webhook`, { repeat: 2 })
    await h.deliver()
    const detail = await call("get", `/admin/payin/transactions/${row2.id}`)
    expect(detail.data.webhooks).toHaveLength(1)
    expect(detail.data.webhooks[0]).toMatchObject({ status: "dispute", state: "applied", duplicates: 1 })
    const health = await call("get", "/admin/payin/webhook-health")
    expect(health.data.providers[0]).toMatchObject({ id: "default", accepted: 1, duplicates: 1, rejected: 0 })
    expect(health.data.providers[0].last_delivery_at).toBeTruthy()

    // a forged callback counts as rejected, with the time and reason
    await api.post("/hooks/payin/default", { id: payin.id }, { headers: { "x-signature": "0".repeat(64) }, validateStatus: () => true })
    const after = await call("get", "/admin/payin/webhook-health")
    expect(after.data.providers[0]).toMatchObject({ rejected: 1, last_failure_reason: "signature_mismatch" })

    expect((await call("get", "/admin/payin/transactions/payintx_missing")).status).toBe(404)
    expect((await call("post", "/admin/payin/transactions/payintx_missing/reconcile")).status).toBe(404)
    expect((await call("get", "/admin/payin/orders/order_missing")).data.transactions).toEqual([])
  })

  it("reconcile now reports a service failure as 502 without the key", async () => {
    const cartId = await shop.cart()
    const session = await shop.session(cartId, "pp_payin_default")
    const [row] = (await call("get", `/admin/payin/transactions?q=${session.id}`)).data.transactions
    sandbox.updateMerchant({ apiKey: ROTATED })
    const res = await call("post", `/admin/payin/transactions/${row.id}/reconcile`)
    expect(res.status).toBe(502)
    expect(res.data).toMatchObject({ type: "service_error", kind: "unauthorized" })
    expect(JSON.stringify(res.data)).not.toContain(KEY)
  })
})
