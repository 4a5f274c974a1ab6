// `npm run demo` end to end, the way a newcomer runs it: embedded PostgreSQL, sandbox, migrated
// and seeded Medusa with the admin; then a second run on the same data; Ctrl-C stops everything.
import { ChildProcess, spawn } from "child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "fs"
import os from "os"
import path from "path"

jest.setTimeout(600_000)

const root = path.resolve(__dirname, "..", "..")
const demoDir = mkdtempSync(path.join(os.tmpdir(), "payin-demo-test-"))

type Demo = Record<string, string>

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

afterAll(() => {
  rmSync(demoDir, { recursive: true, force: true })
})

describe("npm run demo", () => {
  it("brings up a seeded store whose admin login works, and stops everything on Ctrl-C; a second run reuses the data", async () => {
    const port = 9310
    const first = startDemo(port)
    const printed = await first.ready
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

    const pgPid = Number(readFileSync(path.join(demoDir, "pg", "postmaster.pid"), "utf8").split("\n")[0])
    expect(pidAlive(pgPid)).toBe(true)
    expect(await stop(first.child, first.exited)).toBe(0)
    expect(pidAlive(pgPid)).toBe(false)
    await expect(fetch(`${demo.backendUrl}/health`)).rejects.toThrow()
    await expect(fetch(`${demo.sandboxUrl}/payment/trading/banks`)).rejects.toThrow()

    // second run: same data, no seeding
    const second = startDemo(port)
    const printedAgain = await second.ready
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
