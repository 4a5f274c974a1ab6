// The storefront kit as its own package (`medusa-plugin-payin-storefront`, assembled by
// `npm run build` in .medusa/storefront): packed and installed into an empty storefront folder,
// it brings itself and qrcode-generator only (none of the plugin's server dependencies), its
// server-safe entry works in plain Node without a DOM, and it is the same code the plugin serves
// as `medusa-plugin-payin/storefront`. The install sizes measured here are printed for the README.
import { execFileSync } from "child_process"
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "fs"
import os from "os"
import path from "path"

jest.setTimeout(120_000)

const root = path.resolve(__dirname, "..", "..")
const kitDir = path.join(root, ".medusa", "storefront")
if (!existsSync(path.join(kitDir, "package.json"))) {
  throw new Error("the storefront kit package is not built: run `npm run build` (npm test does) before this spec")
}

const work = mkdtempSync(path.join(os.tmpdir(), "payin-kit-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const npm = (args: string[], cwd: string) =>
  execFileSync("npm", args, { cwd, encoding: "utf8", env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false" } })

function pack(dir: string): string {
  const name = npm(["pack", "--silent", "--pack-destination", work, dir], root).trim().split("\n").pop()!
  return path.join(work, name)
}

function installInto(folder: string, tarball: string): { packages: string[]; bytes: number } {
  const dir = path.join(work, folder)
  execFileSync("mkdir", ["-p", dir])
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: folder, private: true }))
  npm(["install", "--no-package-lock", tarball], dir)
  const modules = path.join(dir, "node_modules")
  const packages = readdirSync(modules)
    .filter((e) => !e.startsWith("."))
    .flatMap((e) => (e.startsWith("@") ? readdirSync(path.join(modules, e)).map((s) => `${e}/${s}`) : [e]))
    .sort()
  return { packages, bytes: du(modules) }
}

function du(dir: string): number {
  let total = 0
  for (const entry of readdirSync(dir, { recursive: true }) as string[]) {
    const stat = statSync(path.join(dir, entry), { throwIfNoEntry: false })
    if (stat?.isFile()) total += stat.size
  }
  return total
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`

describe("the storefront kit package", () => {
  let kitTarball: string

  it("installs into a storefront with qrcode-generator only", () => {
    kitTarball = pack(kitDir)
    const storefront = installInto("storefront", kitTarball)
    expect(storefront.packages).toEqual(["medusa-plugin-payin-storefront", "qrcode-generator"])

    // The plugin alone (its Medusa peers are optional, so none comes along): its server
    // dependencies, and not the sandbox's HTTP server (hono is medusa-plugin-payin-sandbox's).
    const plugin = installInto("plugin-alone", pack(root))
    expect(plugin.packages).toEqual(["medusa-plugin-payin", "qrcode-generator", "undici", "zod"])
    expect(storefront.bytes).toBeLessThan(plugin.bytes / 5)
    // Printed for the README's install-size table (not asserted beyond the ratio above).
    console.log(`install size: storefront kit ${mib(storefront.bytes)}; plugin into an empty folder ${mib(plugin.bytes)}`)
  })

  it("serves the same server-safe helpers in plain Node, without a DOM", () => {
    const script = `
      const kit = require("medusa-plugin-payin-storefront")
      if (typeof window !== "undefined" || typeof document !== "undefined") throw new Error("a DOM in plain Node?")
      const client = kit.createPayinStoreClient({})
      client.status({ order_id: "order_1" }).then(
        () => { throw new Error("resolved without a baseUrl") },
        (e) => console.log(JSON.stringify({
          error: e instanceof TypeError ? "TypeError" : String(e),
          mentionsBaseUrl: /baseUrl/.test(e.message),
          amount: kit.formatAmount("1500.5", "RUB", "en"),
          state: kit.fromSessionData({ payin_status: "closed" }, "pp_payin_default").state,
          provider: kit.isPayinProvider("pp_payin_default"),
          exports: Object.keys(kit).sort(),
        }))
      )`
    const out = JSON.parse(execFileSync("node", ["-e", script], { cwd: path.join(work, "storefront"), encoding: "utf8" }))
    expect(out.error).toBe("TypeError")
    expect(out.mentionsBaseUrl).toBe(true)
    expect(out.provider).toBe(true)
    expect(out.state).toBe("paid")
    expect(out.amount).toMatch(/1,500\.5$/) // exact digits, only separators from Intl
    // The same exports as the plugin's own `medusa-plugin-payin/storefront` entry.
    const pluginEntry = require(path.join(root, ".medusa", "server", "src", "storefront", "index.js"))
    expect(out.exports).toEqual(Object.keys(pluginEntry).sort())
  })

  it("ships declarations for both entries and nothing of the server", () => {
    const listing = execFileSync("tar", ["-tzf", kitTarball], { encoding: "utf8" }).split("\n").filter(Boolean)
    expect(listing).toEqual(
      expect.arrayContaining([
        "package/package.json",
        "package/README.md",
        "package/lib/storefront/index.js",
        "package/lib/storefront/index.d.ts",
        "package/lib/storefront/react/index.js",
        "package/lib/storefront/react/index.d.ts",
      ])
    )
    expect(listing.filter((f) => /__tests__|\.spec\.|\/(modules|money-path|sandbox|client|api|providers|admin)\//.test(f))).toEqual([])
  })
})
