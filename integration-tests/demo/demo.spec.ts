// `npm run demo` end to end, the way a newcomer runs it: embedded PostgreSQL, sandbox, migrated
// and seeded Medusa with the admin; then a second run on the same data; Ctrl-C stops everything.
import { execFileSync } from "child_process"
import { existsSync, readFileSync, rmSync } from "fs"
import path from "path"
import { Client } from "pg"
import { freePort } from "../support/net"
import { DemoInfo, DemoSample, makeDemoDir, readDemo, startDemo, stopAllDemos, stopDemo } from "./demo-process"

jest.setTimeout(600_000)

const demoDir = makeDemoDir("payin-demo-test-")

type Demo = DemoInfo
type Sample = DemoSample

function pidAlive(pid: number) {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * A request whose keep-alive connection the server reset is sent again (GETs only): `medusa develop`
 * blocks its event loop for seconds while it compiles the admin on the first visit, and Node's
 * server then closes an idle keep-alive socket although the next request is already waiting on it.
 */
async function fetchRetrying(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init)
  } catch (error: any) {
    if ((init.method ?? "GET") === "GET" && ["ECONNRESET", "UND_ERR_SOCKET"].includes(error?.cause?.code)) {
      return fetch(url, init)
    }
    throw error
  }
}

async function json(url: string, init: RequestInit = {}): Promise<any> {
  const res = await fetchRetrying(url, init)
  const body = await res.json()
  if (!res.ok) {
    throw new Error(`${init.method ?? "GET"} ${url}: ${res.status} ${JSON.stringify(body)}`)
  }
  return body
}

/** Store API checkout with the pay-in provider, then the sandbox's pay action; waits for the capture. */
async function checkoutAndPay(demo: Demo, adminToken: string): Promise<string> {
  const store = { "content-type": "application/json", "x-publishable-api-key": demo.publishableKey }
  const post = (path: string, body: unknown) =>
    json(`${demo.backendUrl}${path}`, { method: "POST", headers: store, body: JSON.stringify(body) })
  const { cart } = await post("/store/carts", {
    region_id: demo.regionId,
    email: "shopper@payin.demo",
    items: [{ variant_id: demo.productVariantId, quantity: 1 }],
  })
  const address = { first_name: "Ivan", last_name: "Petrov", address_1: "Tverskaya 1", city: "Moscow", postal_code: "101000", country_code: "ru" }
  await post(`/store/carts/${cart.id}`, { shipping_address: address, billing_address: address })
  const { shipping_options } = await json(`${demo.backendUrl}/store/shipping-options?cart_id=${cart.id}`, { headers: store })
  await post(`/store/carts/${cart.id}/shipping-methods`, { option_id: shipping_options[0].id })
  const { payment_collection } = await post("/store/payment-collections", { cart_id: cart.id })
  const withSession = await post(`/store/payment-collections/${payment_collection.id}/payment-sessions`, {
    provider_id: demo.providerId,
  })
  const session = withSession.payment_collection.payment_sessions[0]
  expect(session.data.requisite.number).toBeTruthy()
  const completed = await post(`/store/carts/${cart.id}/complete`, {})
  expect(completed.type).toBe("order")
  await json(`${demo.sandboxUrl}/_sandbox/transactions/${session.data.payin_id}/pay`, { method: "POST" })
  const deadline = Date.now() + 30_000
  for (;;) {
    const { order } = await json(`${demo.backendUrl}/admin/orders/${completed.order.id}?fields=payment_status`, {
      headers: { authorization: `Bearer ${adminToken}` },
    })
    if (order.payment_status === "captured") {
      return completed.order.id
    }
    if (Date.now() > deadline) {
      throw new Error(`order ${completed.order.id} still ${order.payment_status} 30 s after the payment`)
    }
    await new Promise((r) => setTimeout(r, 250))
  }
}

/**
 * The sample pay-ins the demo made, checked through the admin API with the printed credentials:
 * Medusa's order and payment state, and the plugin's ledger (status, flags) for each.
 */
async function expectSamples(demo: Demo, token: string, printed: string) {
  const samples = demo.samples
  expect(Object.keys(samples)).toEqual(["paid", "awaiting", "expired", "dispute", "recalculated", "late", "stray"])
  const get = (route: string) => json(`${demo.backendUrl}${route}`, { headers: { authorization: `Bearer ${token}` } })
  const order = async (id: string) =>
    (await get(`/admin/orders/${id}?fields=status,payment_status,*payment_collections,*payment_collections.payments,*payment_collections.payments.captures`)).order
  const payments = (o: any) => o.payment_collections.flatMap((c: any) => c.payments ?? [])
  const ledger = async (s: Sample) => (await get(`/admin/payin/transactions/${s.ledgerId}`)).transaction

  for (const [name, s] of Object.entries(samples)) {
    // one printed line per sample, with its order (or cart) and ledger id
    expect(printed).toContain(`sample "${name}": ${s.orderId ? `order ${s.orderId}` : `cart ${s.cartId}`}, pay-in ${s.ledgerId}`)
    const tx = await ledger(s)
    expect(tx.status).toBe(s.status)
    expect(tx.service_id).toBe(s.payinId)
    if (s.orderId) {
      expect(printed).toContain(s.orderId)
      expect(tx.order_id).toBe(s.orderId)
      // the order widget's route finds it
      const { transactions } = await get(`/admin/payin/orders/${s.orderId}`)
      expect(transactions.map((t: any) => t.id)).toContain(s.ledgerId)
    }
  }

  // 1. paid in full: Medusa captured the payment
  const paid = await order(samples.paid.orderId!)
  expect(paid.payment_status).toBe("captured")
  expect(payments(paid)).toEqual([expect.objectContaining({ captured_at: expect.any(String) })])
  expect(await ledger(samples.paid)).toMatchObject({ status: "closed", captured_at: expect.any(String), flags: null })

  // 2. awaiting the transfer: order placed, nothing captured, the pay-in active with its requisites
  const awaiting = await order(samples.awaiting.orderId!)
  expect(awaiting.status).toBe("pending")
  expect(awaiting.payment_status).not.toBe("captured")
  expect(payments(awaiting).filter((p: any) => p.captured_at)).toHaveLength(0)
  expect(await ledger(samples.awaiting)).toMatchObject({ status: "active", captured_at: null, requisite: expect.any(Object) })

  // 3. expired unpaid: the order was canceled
  const expired = await order(samples.expired.orderId!)
  expect(expired.status).toBe("canceled")
  expect(await ledger(samples.expired)).toMatchObject({ status: "canceled", store_canceled_at: expect.any(String), captured_at: null })

  // 4. an open dispute (after expiry) with the shopper's amount and receipt
  const dispute = await ledger(samples.dispute)
  expect(dispute.status).toBe("dispute")
  expect(dispute.dispute).toMatchObject({ merchant_fiat_amount: "1700.00", merchant_check_url: expect.any(String) })
  expect((await order(samples.dispute.orderId!)).status).toBe("canceled")

  // 4b. a dispute resolved with a recalculated amount (1700.00 of 1790.00): Medusa captured what
  // arrived, the order shows the rest as owed, the underpayment flagged
  const recalculated = await order(samples.recalculated.orderId!)
  expect(recalculated.payment_status).toBe("partially_captured")
  expect(payments(recalculated).flatMap((p: any) => p.captures ?? []).map((c: any) => Number(c.amount))).toEqual([1700])
  const recalculatedTx = await ledger(samples.recalculated)
  expect(recalculatedTx).toMatchObject({ status: "closed", fiat_amount: "1700.00", recalculated_at: expect.any(String) })
  expect(Object.keys(recalculatedTx.flags)).toContain("underpayment")
  const { history } = await get(`/admin/payin/transactions/${samples.recalculated.ledgerId}`)
  expect(history.map((h: any) => h.to_status)).toEqual(
    expect.arrayContaining(["active", "dispute", "checking", "re_calculation", "closed"])
  )

  // 5. paid after expiry: flagged late_payment, never attached to the canceled order
  const late = await order(samples.late.orderId!)
  expect(late.status).toBe("canceled")
  expect(payments(late).filter((p: any) => p.captured_at)).toHaveLength(0)
  const lateTx = await ledger(samples.late)
  expect(lateTx).toMatchObject({ status: "closed", captured_at: null })
  expect(lateTx.flags.late_payment).toMatchObject({ order_id: samples.late.orderId })

  // 5b. the stale requisites of a replaced session paid: flagged stray_payment, the cart left open
  expect(samples.stray.orderId).toBeNull()
  const strayTx = await ledger(samples.stray)
  expect(strayTx).toMatchObject({ status: "closed", captured_at: null, session_deleted_at: expect.any(String) })
  expect(strayTx.flags.stray_payment).toBeTruthy()
  const { cart } = await json(`${demo.backendUrl}/store/carts/${samples.stray.cartId}?fields=completed_at`, {
    headers: { "x-publishable-api-key": demo.publishableKey },
  })
  expect(cart.completed_at).toBeNull()

  // the flag filter of the transactions page finds them
  const flagged = await get(`/admin/payin/transactions?flag=late_payment,stray_payment&limit=100`)
  expect(flagged.transactions.map((t: any) => t.id)).toEqual(expect.arrayContaining([samples.late.ledgerId, samples.stray.ledgerId]))

  // shopper notifications (on in the demo, local provider on "email"): instructions for every
  // order placed awaiting its transfer, then paid or expired; none for a cart without an order
  const instructionsThen = (last?: string) => ["payin.instructions", ...(last ? [last] : [])]
  expect(Object.fromEntries(Object.entries(samples).map(([name, s]) => [name, s.notifications]))).toEqual({
    paid: instructionsThen("payin.paid"),
    awaiting: instructionsThen(),
    expired: instructionsThen("payin.expired"),
    dispute: instructionsThen("payin.expired"),
    recalculated: instructionsThen(),
    late: instructionsThen("payin.expired"),
    stray: [],
  })
  expect(demo.notifications).toMatchObject({
    channel: "email",
    total: 10,
    byTemplate: { "payin.instructions": 6, "payin.paid": 1, "payin.expired": 3 },
    orderStatusUrl: `${demo.storefrontUrl}/order/{order_id}`,
  })
  expect(printed).toContain(
    'Notifications:    10 on channel "email" (Medusa\'s local provider logs them; a store registers SendGrid, Resend, …): ' +
      "payin.instructions 6, payin.paid 1, payin.expired 3"
  )
  // as the Notification Module holds them: one per order and kind, with the documented data
  const { notifications } = await get(`/admin/notifications?channel=email&limit=100`)
  expect(notifications.map((n: any) => n.id).sort()).toEqual(demo.notifications.items.map((n) => n.id).sort())
  const paidMail = notifications.find((n: any) => n.template === "payin.paid" && n.resource_id === samples.paid.orderId)
  expect(paidMail.data).toMatchObject({
    kind: "paid",
    order_id: samples.paid.orderId,
    amount: "1790.00",
    currency: "RUB",
    order_status_url: `${demo.storefrontUrl}/order/${samples.paid.orderId}`,
  })
  const awaitingMail = notifications.find((n: any) => n.resource_id === samples.awaiting.orderId)
  expect(awaitingMail).toMatchObject({ template: "payin.instructions", to: awaitingMail.data.email })
  expect(awaitingMail.data).toMatchObject({ kind: "instructions", requisite_number: expect.any(String), owner_name: expect.any(String) })
  expect(JSON.stringify(notifications)).not.toContain(demo.sandboxApiKey)
}

afterAll(async () => {
  // a failed assertion leaves a demo running: show what it said, stop it as Ctrl-C would
  await stopAllDemos({ showOutput: true })
  rmSync(demoDir, { recursive: true, force: true })
})

describe("npm run demo", () => {
  it("refuses a port fetch cannot reach at once, saying which and why, before starting anything", async () => {
    const dir = makeDemoDir("payin-demo-badport-")
    const refused = startDemo({ demoDir: dir, port: await freePort(), sandboxPort: 4190 })
    expect(await refused.exited).toBe(1)
    expect(refused.output()).toContain('DEMO_SANDBOX_PORT=4190 is a port that fetch refuses (a WHATWG "bad port")')
    expect(existsSync(path.join(dir, "state.json"))).toBe(false)
    rmSync(dir, { recursive: true, force: true })
  })

  it("prints a failed sample's cause, not only fetch's \"fetch failed\"", () => {
    const script = `import { describeError } from ${JSON.stringify(path.join(__dirname, "sample-payins.mjs"))}
try { await fetch("http://127.0.0.1:4190/") } catch (error) { console.log(describeError(error)) }`
    const printed = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" })
    expect(printed.trim()).toBe("fetch failed — bad port")
  })

  it("brings up a seeded store whose admin login works, and stops everything on Ctrl-C; a second run reuses the data", async () => {
    const port = await freePort()
    const firstStarted = Date.now()
    const first = startDemo({ demoDir, port })
    const printed = await first.ready
    const firstSeconds = (Date.now() - firstStarted) / 1000
    const demo: Demo = readDemo(demoDir)

    expect(Object.keys(demo)).toEqual(
      expect.arrayContaining([
        "backendUrl",
        "adminUrl",
        "adminEmail",
        "adminPassword",
        "publishableKey",
        "regionId",
        "productVariantId",
        "providerId",
        "sandboxUrl",
        "sandboxApiKey",
        "storefrontUrl",
        "databaseUrl",
      ])
    )
    expect(demo.backendUrl).toBe(`http://localhost:${port}`)
    expect(demo.providerId).toBe("pp_payin_default")
    // what it prints is what it wrote
    for (const key of ["adminUrl", "adminEmail", "adminPassword", "publishableKey", "sandboxUrl", "storefrontUrl", "databaseUrl"] as const) {
      expect(printed).toContain(demo[key])
    }
    // integration-tests/README.md's sample of the summary names every line it prints, in order
    const labels = (text: string) => [...text.matchAll(/^  ([A-Z][\w ()]*?):\s{2,}/gm)].map((m) => m[1])
    const sample = readFileSync(path.join(__dirname, "../README.md"), "utf8").split("## The demo")[1].split("```")[1]
    const summary = printed.split("Pay-in demo is up")[1]
    expect(labels(sample)).toEqual(labels(summary))
    expect(labels(summary)).toContain("Region (RUB)")

    // the printed credentials log in, and the seeded region has the provider enabled
    const login = await fetch(`${demo.backendUrl}/auth/user/emailpass`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: demo.adminEmail, password: demo.adminPassword }),
    })
    expect(login.status).toBe(200)
    const { token } = (await login.json()) as { token: string }
    const region = await fetch(`${demo.backendUrl}/admin/regions/${demo.regionId}?fields=currency_code,*payment_providers`, {
      headers: { authorization: `Bearer ${token}` },
    })
    const { region: body } = (await region.json()) as any
    expect(body.currency_code).toBe("rub")
    expect(body.payment_providers.map((p: { id: string }) => p.id)).toContain(demo.providerId)

    // the admin dashboard is served
    const admin = await fetch(demo.adminUrl)
    expect(admin.status).toBe(200)
    expect(await admin.text()).toContain("<div id=\"medusa\"")

    // the demo storefront is served, configured for this store, and Medusa lets it call the store API
    const storefrontPage = await fetch(`${demo.storefrontUrl}/checkout`)
    expect(storefrontPage.status).toBe(200)
    const html = await storefrontPage.text()
    expect(html).toContain(demo.publishableKey)
    expect(html).not.toContain(demo.sandboxApiKey)
    const script = await fetch(`${demo.storefrontUrl}/assets/app.js`)
    expect(script.status).toBe(200)
    expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(50_000)
    const preflight = await fetch(`${demo.backendUrl}/store/payin/status?order_id=x`, {
      method: "OPTIONS",
      headers: { origin: demo.storefrontUrl, "access-control-request-method": "GET", "access-control-request-headers": "x-publishable-api-key" },
    })
    expect(preflight.headers.get("access-control-allow-origin")).toBe(demo.storefrontUrl)

    // the sandbox answers with the printed key
    const banks = await fetch(`${demo.sandboxUrl}/payment/trading/banks`, { headers: { "x-api-key": demo.sandboxApiKey } })
    expect(banks.status).toBe(200)

    // the sample pay-ins exist with the expected Medusa state, and the summary names them
    await expectSamples(demo, token, printed)
    const samplesSeconds = /(\d+) sample pay-ins made in ([\d.]+) s/.exec(printed)
    expect(samplesSeconds?.[1]).toBe("7")

    // the demo takes a payment end to end: storefront checkout, the shopper pays at the sandbox
    const orderId = await checkoutAndPay(demo, token)
    expect(orderId).toMatch(/^order_/)

    // databaseUrl opens the demo's data: the ledger holds the samples and this order's paid pay-in
    expect(demo.databaseUrl).toMatch(/^postgres:\/\/[^@]+@[^/]+:\d+\/[\w-]+$/)
    const client = new Client({ connectionString: demo.databaseUrl })
    await client.connect()
    try {
      const ledger = await client.query("select count(*)::int as n from payin_transaction")
      expect(ledger.rows[0].n).toBeGreaterThanOrEqual(8)
      // the ledger records the capture right after Medusa's capture (payment_status above) is committed
      const paidRow = async () => (await client.query("select status, captured_at from payin_transaction where order_id = $1", [orderId])).rows
      let paid = { rows: await paidRow() }
      for (const deadline = Date.now() + 10_000; !paid.rows[0]?.captured_at && Date.now() < deadline; ) {
        await new Promise((r) => setTimeout(r, 100))
        paid = { rows: await paidRow() }
      }
      expect(paid.rows).toHaveLength(1)
      expect(paid.rows[0].status).toBe("closed")
      expect(paid.rows[0].captured_at).not.toBeNull()
    } finally {
      await client.end()
    }
    // the plugin's commands run against the demo's store as integration-tests/README.md says
    const rebuild = execFileSync("npx", ["medusa", "exec", "./src/scripts/rebuild-insights.ts", "check"], {
      cwd: path.join(__dirname, "../app"),
      env: { ...process.env, DATABASE_URL: demo.databaseUrl },
      encoding: "utf8",
    })
    expect(rebuild).toMatch(/payin insights: the rollups agree with the ledger \(\d+ pay-ins\)/)
    // the paid mail goes out after the capture (an event and its subscriber): stop the demo once it is
    // sent, so the second run's summary can list it (stopped earlier, the retry job sends it later)
    const paidMailSent = async () =>
      (await json(`${demo.backendUrl}/admin/notifications?channel=email&limit=200`, { headers: { authorization: `Bearer ${token}` } }))
        .notifications.some((n: any) => n.template === "payin.paid" && n.resource_id === orderId)
    for (const deadline = Date.now() + 30_000; !(await paidMailSent()) && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 250))
    }
    expect(await paidMailSent()).toBe(true)

    const pgPid = Number(readFileSync(path.join(demoDir, "pg", "postmaster.pid"), "utf8").split("\n")[0])
    expect(pidAlive(pgPid)).toBe(true)
    expect(await stopDemo(first)).toBe(0)
    expect(pidAlive(pgPid)).toBe(false)
    await expect(fetch(`${demo.backendUrl}/health`)).rejects.toThrow()
    await expect(fetch(`${demo.sandboxUrl}/payment/trading/banks`)).rejects.toThrow()
    await expect(fetch(demo.storefrontUrl)).rejects.toThrow()

    // second run: same data, no seeding
    const secondStarted = Date.now()
    // an outside storefront: its origin in DEMO_ALLOWED_ORIGINS, and a STORE_CORS of the developer's own, both honoured
    const second = startDemo({
      demoDir,
      port,
      extraEnv: { DEMO_ALLOWED_ORIGINS: "https://shop.example.test", STORE_CORS: "https://own-cors.example.test" },
    })
    const printedAgain = await second.ready
    console.log(
      `demo start-up: first run ${firstSeconds.toFixed(1)} s (of which sample pay-ins ${samplesSeconds?.[2]} s), ` +
        `second run ${((Date.now() - secondStarted) / 1000).toFixed(1)} s`
    )
    expect(printedAgain).not.toContain("seeding the demo store")
    // samples only once per database: the same ones again, none made
    expect(printedAgain).not.toContain("making sample pay-ins")
    const demoAgain: Demo = readDemo(demoDir)
    expect(demoAgain.samples).toEqual(demo.samples)
    // the summary lists every notification made since: the samples' and the checkout paid above
    expect(demoAgain.notifications.items.map((n) => n.id)).toEqual(expect.arrayContaining(demo.notifications.items.map((n) => n.id)))
    expect(demoAgain.notifications.items).toContainEqual(expect.objectContaining({ template: "payin.paid", orderId }))
    expect(printedAgain).toContain(demo.samples.paid.orderId!)
    expect(demoAgain.regionId).toBe(demo.regionId)
    expect(demoAgain.publishableKey).toBe(demo.publishableKey)
    expect(demoAgain.sandboxApiKey).toBe(demo.sandboxApiKey)
    const loginAgain = await fetch(`${demoAgain.backendUrl}/auth/user/emailpass`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: demo.adminEmail, password: demo.adminPassword }),
    })
    expect(loginAgain.status).toBe(200)
    for (const origin of ["https://shop.example.test", "https://own-cors.example.test", demoAgain.storefrontUrl]) {
      const preflight = await fetch(`${demoAgain.backendUrl}/store/products`, {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": "GET", "access-control-request-headers": "x-publishable-api-key" },
      })
      expect([origin, preflight.headers.get("access-control-allow-origin")]).toEqual([origin, origin])
    }
    const { token: tokenAgain } = await loginAgain.json()
    const settings = await json(`${demoAgain.backendUrl}/admin/payin/settings/default`, { headers: { authorization: `Bearer ${tokenAgain}` } })
    expect(settings.values.allowedRedirectOrigins).toEqual(expect.arrayContaining(["https://shop.example.test", demoAgain.storefrontUrl]))
    expect(await stopDemo(second)).toBe(0)
    expect(existsSync(path.join(demoDir, "pg", "PG_VERSION"))).toBe(true)
  })
})
