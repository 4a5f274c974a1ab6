// The sandbox as its own package (`medusa-plugin-payin-sandbox`, assembled by `npm run build` in
// .medusa/sandbox): packed and installed into an empty folder, it brings its HTTP server (hono,
// @hono/node-server) and what the shared client code needs (zod, undici), its `payin-sandbox`
// command pairs it with a store (`--store-url`), and `startSandbox()` works from plain Node. The
// plugin's own tarball no longer carries the sandbox or its server: a production store installs
// neither. The install sizes measured here are printed for the README.
import { execFileSync, spawn } from "child_process"
import { mkdirSync, readFileSync } from "fs"
import path from "path"
import { request } from "undici"
import { builtPackage, type Installed, mib, packingWorkspace, root } from "../support/packing"

jest.setTimeout(120_000)

const sandboxDir = builtPackage("sandbox", "sandbox")
const { work, pack, installInto } = packingWorkspace("payin-sandbox-pkg-")
const listing = (tarball: string) => execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).split("\n").filter(Boolean)

describe("the sandbox package", () => {
  let installed: Installed
  let sandboxTarball: string

  beforeAll(() => {
    sandboxTarball = pack(sandboxDir)
    installed = installInto("dev-tools", sandboxTarball)
  })

  it("installs with its server and the shared client code's dependencies only, at the plugin's version", () => {
    expect(installed.packages).toEqual(["@hono/node-server", "hono", "medusa-plugin-payin-sandbox", "undici", "zod"])
    const pkg = JSON.parse(readFileSync(path.join(installed.dir, "node_modules", "medusa-plugin-payin-sandbox", "package.json"), "utf8"))
    const plugin = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"))
    expect(pkg.version).toBe(plugin.version)
    expect(pkg.bin).toEqual({ "payin-sandbox": "lib/sandbox/cli.js" })
    const files = listing(sandboxTarball)
    expect(files).toEqual(expect.arrayContaining(["package/README.md", "package/lib/sandbox/cli.js", "package/lib/sandbox/index.d.ts", "package/lib/client/schemas.js"]))
    // nothing of Medusa, the plugin's server code or the tests
    expect(files.filter((f) => /__tests__|\.spec\.|\/(modules|money-path|api|providers|admin|storefront)\//.test(f))).toEqual([])
  })

  it("runs `payin-sandbox --store-url` from node_modules/.bin: webhooks to the store, the .env lines printed and working", async () => {
    const bin = path.join(installed.dir, "node_modules", ".bin", "payin-sandbox")
    const child = spawn(bin, ["--port", "0", "--api-key", "dev-key", "--store-url", "http://localhost:9000"], {
      cwd: installed.dir,
      stdio: ["ignore", "pipe", "pipe"],
    })
    let out = ""
    let err = ""
    child.stderr!.on("data", (c: Buffer) => (err += c.toString()))
    const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no .env lines; stdout: ${out}; stderr: ${err}`)), 30_000)
        child.stdout!.on("data", (c: Buffer) => {
          out += c.toString()
          if (/^PAYIN_BASE_URL=.*\n/m.test(out)) {
            clearTimeout(timer)
            resolve()
          }
        })
        void exit.then((code) => reject(new Error(`exited with ${code}; stderr: ${err}`)))
      })
      const lines = out.trimEnd().split("\n")
      const url = /^payin-sandbox listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(lines[0])![1]
      expect(lines.slice(1)).toEqual([
        "webhooks go to http://localhost:9000/hooks/payin/default",
        "# paste into the store's .env (then restart `medusa develop`):",
        "PAYIN_API_KEY=dev-key",
        `PAYIN_BASE_URL=${url}`,
      ])
      const merchant = await request(`${url}/_sandbox/merchant`)
      expect(((await merchant.body.json()) as any).webhookUrl).toBe("http://localhost:9000/hooks/payin/default")
      const banks = await request(`${url}/payment/trading/banks`, { headers: { "x-api-key": "dev-key" } })
      expect(banks.statusCode).toBe(200)
      expect(((await banks.body.json()) as any[]).length).toBeGreaterThan(0)
    } finally {
      child.kill("SIGTERM")
    }
    expect(await exit).toBe(0)
  })

  it("serves startSandbox() to plain Node (a store's own tests)", () => {
    const script = `
      const { startSandbox, BANKS } = require("medusa-plugin-payin-sandbox")
      startSandbox({ port: 0, apiKey: "k" }).then(async (sandbox) => {
        const res = await fetch(sandbox.url + "/payment/trading/pay-in", {
          method: "POST",
          headers: { "x-api-key": "k", "content-type": "application/json" },
          body: JSON.stringify({ fiatAmount: 1500, fiatCurrency: "RUB" }),
        })
        const tx = await res.json()
        console.log(JSON.stringify({ status: res.status, id: sandbox.transaction(tx.id)?.id === tx.id, banks: BANKS.length > 0 }))
        await sandbox.close()
      })`
    const out = JSON.parse(execFileSync("node", ["-e", script], { cwd: installed.dir, encoding: "utf8" }))
    expect(out).toEqual({ status: 201, id: true, banks: true })
  })

  it("is not in the plugin: no sandbox files, command, export or HTTP server in medusa-plugin-payin", () => {
    const pluginTarball = pack(root)
    const files = listing(pluginTarball)
    expect(files.filter((f) => f.includes("/src/sandbox/"))).toEqual([])
    const pkg = JSON.parse(execFileSync("tar", ["-xzOf", pluginTarball, "package/package.json"], { encoding: "utf8" }))
    expect(pkg.bin).toBeUndefined()
    expect(Object.keys(pkg.exports).filter((k) => k.includes("sandbox"))).toEqual([])
    expect(Object.keys(pkg.dependencies)).toEqual(expect.not.arrayContaining(["hono", "@hono/node-server"]))
    // no shipped file requires what the plugin no longer declares
    const extracted = path.join(work, "plugin-files")
    mkdirSync(extracted)
    execFileSync("tar", ["-xzf", pluginTarball, "-C", extracted])
    const requiring = files
      .filter((f) => /\.(c|m)?js$|\.d\.ts$/.test(f))
      .filter((f) => /(?:require\(|from\s*|import\s*\()\s*["'](?:hono|@hono\/node-server)(?:\/[^"']*)?["']/.test(readFileSync(path.join(extracted, f), "utf8")))
    expect(requiring).toEqual([])

    const plugin = installInto("plugin-alone", pluginTarball)
    expect(plugin.packages).toEqual(expect.not.arrayContaining(["hono", "@hono/node-server", "medusa-plugin-payin-sandbox"]))
    // Printed for the README's install-size table (the sandbox is a development tool).
    console.log(`install size: plugin into an empty folder ${mib(plugin.bytes)}; sandbox package ${mib(installed.bytes)}`)
  })
})
