// `npm run demo` end to end, the way a newcomer runs it: embedded PostgreSQL, sandbox, migrated
// and seeded Medusa with the admin; then a second run on the same data; Ctrl-C stops everything.
import { ChildProcess, spawn } from "child_process"
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "fs"
import os from "os"
import path from "path"
import { freePort } from "../support/net"

jest.setTimeout(600_000)

const root = path.resolve(__dirname, "..", "..")
const demoDir = mkdtempSync(path.join(os.tmpdir(), "payin-demo-test-"))
chmodSync(demoDir, 0o755) // PostgreSQL runs as the OS user "postgres", which must enter it

type Demo = Record<string, string>


const started = new Set<ChildProcess>()

function startDemo(port: number) {
  const env: NodeJS.ProcessEnv = { ...process.env, DEMO_DIR: demoDir, DEMO_PORT: String(port), DEMO_SANDBOX_PORT: "0" }
  // the embedded default, not the test run's server
  for (const key of ["DATABASE_URL", "DB_HOST", "DB_PORT", "DB_USERNAME", "DB_PASSWORD", "DB_NAME"]) {
    delete env[key]
  }
  const child = spawn(process.execPath, [path.join(root, "integration-tests", "demo", "demo.mjs")], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  })
  started.add(child)
  child.on("exit", () => started.delete(child))
  let output = ""
  child.stdout!.on("data", (d) => (output += d))
  child.stderr!.on("data", (d) => (output += d))
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      if (output.includes("Pay-in demo is up")) {
        clearInterval(timer)
        resolve(output)
      }
    }, 200)
    exited.then((code) => {
      clearInterval(timer)
      reject(new Error(`demo exited with ${code} before it was up:\n${output.slice(-4000)}`))
    })
  })
  return { child, ready, exited, output: () => output }
}

async function stop(child: ChildProcess, exited: Promise<number | null>) {
  child.kill("SIGINT")
  return exited
}

function pidAlive(pid: number) {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function json(url: string, init: RequestInit = {}): Promise<any> {
  const res = await fetch(url, init)
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

afterAll(async () => {
  // a failed assertion leaves a demo running: stop it as Ctrl-C would
  for (const child of started) {
    const exited = new Promise((r) => child.on("exit", r))
    child.kill("SIGINT")
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))])
  }
  rmSync(demoDir, { recursive: true, force: true })
})

describe("npm run demo", () => {
  it("brings up a seeded store whose admin login works, and stops everything on Ctrl-C; a second run reuses the data", async () => {
    const port = await freePort()
    const firstStarted = Date.now()
    const first = startDemo(port)
    const printed = await first.ready
    const firstSeconds = (Date.now() - firstStarted) / 1000
    const demo: Demo = JSON.parse(readFileSync(path.join(demoDir, "demo.json"), "utf8"))

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
      ])
    )
    expect(demo.backendUrl).toBe(`http://localhost:${port}`)
    expect(demo.providerId).toBe("pp_payin_default")
    // what it prints is what it wrote
    for (const key of ["adminUrl", "adminEmail", "adminPassword", "publishableKey", "sandboxUrl"]) {
      expect(printed).toContain(demo[key])
    }

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

    // the sandbox answers with the printed key
    const banks = await fetch(`${demo.sandboxUrl}/payment/trading/banks`, { headers: { "x-api-key": demo.sandboxApiKey } })
    expect(banks.status).toBe(200)

    // the demo takes a payment end to end: storefront checkout, the shopper pays at the sandbox
    const orderId = await checkoutAndPay(demo, token)
    expect(orderId).toMatch(/^order_/)

    const pgPid = Number(readFileSync(path.join(demoDir, "pg", "postmaster.pid"), "utf8").split("\n")[0])
    expect(pidAlive(pgPid)).toBe(true)
    expect(await stop(first.child, first.exited)).toBe(0)
    expect(pidAlive(pgPid)).toBe(false)
    await expect(fetch(`${demo.backendUrl}/health`)).rejects.toThrow()
    await expect(fetch(`${demo.sandboxUrl}/payment/trading/banks`)).rejects.toThrow()

    // second run: same data, no seeding
    const secondStarted = Date.now()
    const second = startDemo(port)
    const printedAgain = await second.ready
    console.log(`demo start-up: first run ${firstSeconds.toFixed(1)} s, second run ${((Date.now() - secondStarted) / 1000).toFixed(1)} s`)
    expect(printedAgain).not.toContain("seeding the demo store")
    const demoAgain: Demo = JSON.parse(readFileSync(path.join(demoDir, "demo.json"), "utf8"))
    expect(demoAgain.regionId).toBe(demo.regionId)
    expect(demoAgain.publishableKey).toBe(demo.publishableKey)
    expect(demoAgain.sandboxApiKey).toBe(demo.sandboxApiKey)
    const loginAgain = await fetch(`${demoAgain.backendUrl}/auth/user/emailpass`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: demo.adminEmail, password: demo.adminPassword }),
    })
    expect(loginAgain.status).toBe(200)
    expect(await stop(second.child, second.exited)).toBe(0)
    expect(existsSync(path.join(demoDir, "pg", "PG_VERSION"))).toBe(true)
  })
})
