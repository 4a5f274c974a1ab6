// The storefront kit as its own package (`medusa-plugin-payin-storefront`, assembled by
// `npm run build` in .medusa/storefront): packed and installed into an empty storefront folder,
// it brings itself and qrcode-generator only (none of the plugin's server dependencies), its
// server-safe entry works in plain Node without a DOM, and it is the same code the plugin serves
// as `medusa-plugin-payin/storefront`. The install sizes measured here are printed for the README.
import { execFileSync } from "child_process"
import path from "path"
import { builtPackage, mib, packingWorkspace, root } from "../support/packing"

jest.setTimeout(120_000)

const kitDir = builtPackage("storefront", "storefront kit")
const { work, pack, installInto } = packingWorkspace("payin-kit-")

describe("the storefront kit package", () => {
  let kitTarball: string

  it("installs into a storefront with qrcode-generator only", () => {
    kitTarball = pack(kitDir)
    const storefront = installInto("storefront", kitTarball)
    expect(storefront.packages).toEqual(["medusa-plugin-payin-storefront", "qrcode-generator"])

    // The plugin alone (its Medusa peers are optional, so none comes along): its server
    // dependencies, and not the sandbox's HTTP server (hono is medusa-plugin-payin-sandbox's).
    const plugin = installInto("plugin-alone", pack(root))
    // uplot: the admin's insights charts (the store's admin build bundles it; the server never loads it);
    // @opentelemetry/api: the plugin's spans and metrics (a no-op unless the store registers OpenTelemetry)
    expect(plugin.packages).toEqual(["@opentelemetry/api", "medusa-plugin-payin", "qrcode-generator", "undici", "uplot", "zod"])
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
