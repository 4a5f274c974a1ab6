import { spawn, type ChildProcess } from "child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "fs"
import { tmpdir } from "os"
import path from "path"
import { startSandbox } from "../../src/sandbox"
import { API_KEY, call, hmacHex, payInBody, WebhookReceiver } from "./helpers"

const ROOT = path.resolve(__dirname, "../..")
const CLI = path.join(ROOT, "src/sandbox/cli.ts")
const LINE = /^payin-sandbox listening on (http:\/\/([^\s:]+|\[[^\]]+\]):(\d+))$/m

interface Cli {
  child: ChildProcess
  url: string
  stdout: () => string
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** Runs the CLI from its TypeScript source through ts-node (transpile-only) and waits for its line. */
function startCli(args: string[]): Promise<Cli> {
  const child = spawn(process.execPath, ["-r", "ts-node/register/transpile-only", CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, TS_NODE_TRANSPILE_ONLY: "true" },
    stdio: ["ignore", "pipe", "pipe"],
  })
  let out = ""
  let err = ""
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal }))
  )
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`CLI did not print its line; stderr: ${err}`)), 60_000)
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const match = LINE.exec(out)
      if (match) {
        clearTimeout(timer)
        resolve({ child, url: match[1], stdout: () => out, exit })
      }
    })
    child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString()))
    void exit.then(({ code }) => {
      clearTimeout(timer)
      reject(new Error(`CLI exited early with ${code}; stderr: ${err}`))
    })
  })
}

function runCliToExit(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ["-r", "ts-node/register/transpile-only", CLI, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] })
  let stderr = ""
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()))
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, stderr })))
}

describe("sandbox --data persistence", () => {
  let dir: string

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "payin-sandbox-data-"))
  })

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true })
  })

  it("keeps transactions, merchant settings, pay-outs and the clock across a restart", async () => {
    const dataFile = path.join(dir, "nested", "state.json")
    const first = await startSandbox({ port: 0, apiKey: API_KEY, dataFile, requisitesPerMethod: 1 })
    const active = (await call(first.url, "POST", "/payment/trading/pay-in", {
      body: payInBody({ bank: "kapitalbank", fiatCurrency: "UZS", fiatAmount: 100, extra: { externalTransactionId: "persist-1" } }),
    })).body
    const closed = (await call(first.url, "POST", "/payment/trading/pay-in", { body: payInBody({ fiatAmount: 7 }) })).body
    await call(first.url, "POST", `/_sandbox/transactions/${closed.id}/pay`, { apiKey: null })
    await call(first.url, "PUT", "/_sandbox/merchant", { apiKey: null, body: { successUrl: "https://shop.example.test/ok" } })
    await call(first.url, "POST", "/payment/trading/pay-out", { body: { fiatAmount: 5, fiatCurrency: "RUB", requisites: "123" } })
    await call(first.url, "POST", "/_sandbox/clock/advance", { apiKey: null, body: { seconds: 100 } })
    await first.close()
    expect(JSON.parse(readFileSync(dataFile, "utf8")).transactions).toHaveLength(2)

    const second = await startSandbox({ port: 0, apiKey: API_KEY, dataFile })
    try {
      const byId = await call(second.url, "GET", `/payment/trading/${active.id}`)
      expect(byId.status).toBe(200)
      expect({ ...byId.body, externalPaymentPageUrl: undefined }).toEqual({ ...active, externalPaymentPageUrl: undefined })
      expect((await call(second.url, "GET", "/payment/trading/external/persist-1")).body.id).toBe(active.id)
      expect((await call(second.url, "GET", `/payment/trading/${closed.id}`)).body.status).toBe("closed")
      expect(second.merchant().successUrl).toBe("https://shop.example.test/ok")
      expect(second.merchant().requisitesPerMethod).toBe(1)
      expect((await call(second.url, "GET", "/_sandbox/payouts", { apiKey: null })).body).toHaveLength(1)
      expect((await call(second.url, "GET", "/_sandbox/clock", { apiKey: null })).body.offsetMs).toBe(100_000)
      // Indexes are rebuilt: the duplicate external id and the held requisite are still known.
      expect((await call(second.url, "POST", "/payment/trading/pay-in", { body: payInBody({ extra: { externalTransactionId: "persist-1" } }) })).status).toBe(409)
      const held = await call(second.url, "POST", "/payment/trading/pay-in", { body: payInBody({ bank: "kapitalbank", fiatCurrency: "UZS", fiatAmount: 100 }) })
      expect(held.status).toBe(422)
      // ...and so is the expiry schedule (900 s window, 100 s already spent).
      await call(second.url, "POST", "/_sandbox/clock/advance", { apiKey: null, body: { seconds: 801 } })
      expect(second.transaction(active.id)!.status).toBe("canceled")
    } finally {
      await second.close()
    }
  })

  it("starts empty without a file and refuses a corrupt one", async () => {
    const dataFile = path.join(dir, "fresh.json")
    const fresh = await startSandbox({ port: 0, apiKey: API_KEY, dataFile })
    expect(fresh.transactions()).toEqual([])
    await fresh.close()
    const corrupt = path.join(dir, "corrupt.json")
    writeFileSync(corrupt, "{not json")
    await expect(startSandbox({ port: 0, apiKey: API_KEY, dataFile: corrupt })).rejects.toThrow()
  })
})

describe("payin-sandbox CLI", () => {
  it("prints its line, honours its flags and exits 0 on SIGTERM", async () => {
    const receiver = await new WebhookReceiver().start()
    const cli = await startCli([
      "--port", "0",
      "--host", "127.0.0.1",
      "--api-key", "cli-key",
      "--webhook-url", receiver.url,
      "--payment-window", "60",
      "--whitelist", "10.0.0.0/8, 192.0.2.1",
    ])
    try {
      expect(cli.stdout()).toMatch(/^payin-sandbox listening on http:\/\/127\.0\.0\.1:\d+\n$/)
      expect(Number(new URL(cli.url).port)).toBeGreaterThan(0)
      const merchant = (await call(cli.url, "GET", "/_sandbox/merchant", { apiKey: null })).body
      expect(merchant).toMatchObject({ paymentWindowSeconds: 60, whitelist: ["10.0.0.0/8", "192.0.2.1"], webhookUrl: receiver.url })
      // Key first, then the whitelist (127.0.0.1 is not listed).
      expect((await call(cli.url, "GET", "/payment/trading/banks", { apiKey: "nope" })).status).toBe(401)
      const forbidden = await call(cli.url, "GET", "/payment/trading/banks", { apiKey: "cli-key" })
      expect(forbidden.status).toBe(403)
      expect(forbidden.body.code).toBe("MERCHANT_IP_NOT_WHITELISTED")
      await call(cli.url, "PUT", "/_sandbox/merchant", { apiKey: null, body: { whitelist: [] } })
      const tx = (await call(cli.url, "POST", "/payment/trading/pay-in", { apiKey: "cli-key", body: payInBody() })).body
      await call(cli.url, "POST", "/_sandbox/clock/advance", { apiKey: null, body: { seconds: 61 } })
      const [hook] = await receiver.waitFor(1)
      expect(hook.body.id).toBe(tx.id)
      expect(hook.body.status).toBe("canceled")
      expect(hook.signature).toBe(hmacHex(hook.rawBody, "cli-key"))
    } finally {
      cli.child.kill("SIGTERM")
      await receiver.stop()
    }
    expect(await cli.exit).toEqual({ code: 0, signal: null })
  })

  it("keeps state with --data across a restart and exits 0 on SIGINT", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "payin-sandbox-cli-"))
    const dataFile = path.join(dir, "state.json")
    try {
      const first = await startCli(["--port", "0", "--api-key", "k1", "--data", dataFile])
      const tx = (await call(first.url, "POST", "/payment/trading/pay-in", { apiKey: "k1", body: payInBody({ extra: { externalTransactionId: "cli-persist" } }) })).body
      first.child.kill("SIGINT")
      expect(await first.exit).toEqual({ code: 0, signal: null })

      const second = await startCli(["--port", "0", "--api-key", "k1", "--data", dataFile])
      try {
        const found = await call(second.url, "GET", "/payment/trading/external/cli-persist", { apiKey: "k1" })
        expect(found.status).toBe(200)
        expect(found.body.id).toBe(tx.id)
      } finally {
        second.child.kill("SIGTERM")
      }
      expect(await second.exit).toEqual({ code: 0, signal: null })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("--store-url sends webhooks to the store's /hooks/payin/default and prints the store's .env lines", async () => {
    const store = await new WebhookReceiver().start()
    const storeUrl = new URL(store.url).origin
    const cli = await startCli(["--port", "0", "--api-key", "dev-key", "--store-url", `${storeUrl}/`])
    try {
      const deadline = Date.now() + 5_000
      while (!cli.stdout().includes("PAYIN_BASE_URL=") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      expect(cli.stdout()).toBe(
        [
          `payin-sandbox listening on ${cli.url}`,
          `webhooks go to ${storeUrl}/hooks/payin/default`,
          "# paste into the store's .env (then restart `medusa develop`):",
          "PAYIN_API_KEY=dev-key",
          `PAYIN_BASE_URL=${cli.url}`,
          "",
        ].join("\n")
      )
      const merchant = (await call(cli.url, "GET", "/_sandbox/merchant", { apiKey: null })).body
      expect(merchant.webhookUrl).toBe(`${storeUrl}/hooks/payin/default`)
      // the printed lines work: a pay-in made with them is called back, signed with that key
      const env = Object.fromEntries(cli.stdout().split("\n").filter((l) => l.startsWith("PAYIN_")).map((l) => l.split("=", 2)))
      const tx = (await call(env.PAYIN_BASE_URL, "POST", "/payment/trading/pay-in", { apiKey: env.PAYIN_API_KEY, body: payInBody() })).body
      await call(cli.url, "POST", `/_sandbox/transactions/${tx.id}/pay`, { apiKey: null })
      const [hook] = await store.waitFor(1)
      expect(hook.body).toMatchObject({ id: tx.id, status: "closed" })
      expect(hook.signature).toBe(hmacHex(hook.rawBody, "dev-key"))
    } finally {
      cli.child.kill("SIGTERM")
      await store.stop()
    }
    expect(await cli.exit).toEqual({ code: 0, signal: null })

    // --webhook-url wins over the one --store-url implies
    const both = await startCli(["--port", "0", "--api-key", "k", "--store-url", storeUrl, "--webhook-url", "http://127.0.0.1:9/elsewhere"])
    try {
      expect((await call(both.url, "GET", "/_sandbox/merchant", { apiKey: null })).body.webhookUrl).toBe("http://127.0.0.1:9/elsewhere")
    } finally {
      both.child.kill("SIGTERM")
    }
    expect(await both.exit).toEqual({ code: 0, signal: null })

    const bad = await runCliToExit(["--port", "0", "--api-key", "k", "--store-url", "localhost:9000"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("--store-url must be an http(s) URL")
  })

  it("exits 2 with its usage on bad arguments", async () => {
    const missingKey = await runCliToExit(["--port", "0"])
    expect(missingKey.code).toBe(2)
    expect(missingKey.stderr).toContain("--api-key is required")
    expect(missingKey.stderr).toContain("Usage: payin-sandbox")
    const badPort = await runCliToExit(["--port", "abc", "--api-key", "k"])
    expect(badPort.code).toBe(2)
    const unknown = await runCliToExit(["--api-key", "k", "--bogus"])
    expect(unknown.code).toBe(2)
  })

  it("the CLI source starts with a node shebang", () => {
    expect(readFileSync(CLI, "utf8").split("\n")[0]).toBe("#!/usr/bin/env node")
  })
})
