// The published artifact in a store: `npm pack` the built plugin, install the tarball into a
// throw-away store whose medusa-config.js registers it with `withPayin()` from
// "medusa-plugin-payin/config", and boot that store on PostgreSQL. Proves the `files`, `exports`,
// the built module, its migrations and the provider as a store gets them (npm test builds first).
import { execFileSync } from "child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "fs"
import os from "os"
import path from "path"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { adminHeaders } from "../support/admin"
import { npmPack, unpackInto } from "../support/packing"

jest.setTimeout(180_000)

const root = path.resolve(__dirname, "..", "..")
if (!existsSync(path.join(root, ".medusa", "server", "medusa-plugin.config.js"))) {
  throw new Error("the plugin is not built: run `npm run build` (npm test does) before this spec")
}

const store = mkdtempSync(path.join(os.tmpdir(), "payin-store-"))
const tarball = npmPack(store)
const pluginDir = unpackInto(store, "medusa-plugin-payin", tarball)
// Every other dependency is the repository's own install (one copy of @medusajs/* in the process).
for (const entry of readdirSync(path.join(root, "node_modules"))) {
  if (entry === "medusa-plugin-payin" || entry.startsWith(".")) {
    continue
  }
  symlinkSync(path.join(root, "node_modules", entry), path.join(store, "node_modules", entry))
}
writeFileSync(
  path.join(store, "package.json"),
  JSON.stringify({
    name: "payin-test-store",
    private: true,
    // the Medusa CLI runs its commands (medusa exec) only in a project that depends on @medusajs/medusa
    dependencies: { "@medusajs/medusa": require("@medusajs/medusa/package.json").version, "medusa-plugin-payin": `file:./${path.basename(tarball)}` },
  })
)
writeFileSync(
  path.join(store, "medusa-config.js"),
  `const { defineConfig } = require("@medusajs/framework/utils")
const { withPayin } = require("medusa-plugin-payin/config")
module.exports = defineConfig(
  withPayin(
    { projectConfig: { http: { jwtSecret: "test", cookieSecret: "test" } } },
    { providers: [{ id: "rub", apiKey: "store-test-key", baseUrl: "http://127.0.0.1:9" }, { id: "kzt" }] }
  )
)
`
)

afterAll(() => {
  rmSync(store, { recursive: true, force: true })
})

medusaIntegrationTestRunner({
  inApp: true,
  cwd: store,
  testSuite: ({ api, getContainer, dbConnection, dbConfig }) => {
    describe("the packed plugin installed in a store", () => {
      it("ships only the build, with every export target present", () => {
        const files = execFileSync("find", [".", "-type", "f"], { cwd: pluginDir, encoding: "utf8" }).split("\n")
        expect(files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([])
        expect(files.some((f) => f.includes("__tests__"))).toBe(false)
        const pkg = require(path.join(pluginDir, "package.json"))
        for (const [key, target] of Object.entries<any>(pkg.exports)) {
          if (target === null) continue // a subpath kept out of the package's surface (./scripts/*)
          const targets = typeof target === "string" ? [target] : Object.values<string>(target)
          for (const t of targets.filter((t) => !t.includes("*"))) {
            expect([key, existsSync(path.join(pluginDir, t))]).toEqual([key, true])
          }
        }
        expect(existsSync(path.join(pluginDir, ".medusa/server/src/providers/payin/index.js"))).toBe(true)
        expect(existsSync(path.join(pluginDir, ".medusa/server/src/modules/payin/index.js"))).toBe(true)
      })

      it("ships the storefront kit: helpers without React, the component with it (\"use client\" kept for Next.js)", () => {
        const kitPath = require.resolve("medusa-plugin-payin/storefront", { paths: [store] })
        expect(kitPath.startsWith(pluginDir)).toBe(true)
        const kit = require(kitPath)
        expect(kit.formatAmount("1790.00", "RUB", "ru")).toMatch(/^1\s790,00\s₽$/)
        expect(kit.isPayinProvider("pp_payin_rub")).toBe(true)
        expect(kit.qrSvg("https://qr.nspk.ru/AS1").path.length).toBeGreaterThan(100)
        // the helpers entry must not pull React in (Vue/Svelte storefronts)
        const { readFileSync } = require("fs")
        expect(readFileSync(kitPath, "utf8")).not.toMatch(/require\("react/)
        const reactPath = require.resolve("medusa-plugin-payin/storefront/react", { paths: [store] })
        expect(readFileSync(reactPath, "utf8")).toMatch(/^"use strict";\s*"use client";|^"use client";/)
        const { PayinInstructions } = require(reactPath)
        const { createElement } = require("react")
        const { renderToStaticMarkup } = require("react-dom/server")
        const payin = kit.fromSessionData(
          {
            payin_id: "tx-1",
            payin_status: "active",
            amount: "1790.00",
            currency: "RUB",
            method: "card",
            bank: "sberbank",
            requisite: { bank: "sberbank", owner_name: "Anna K.", number: "2202201234567890", sbp_number: null },
            payment_page_url: null,
            created_at: new Date().toISOString(),
            expires_at: new Date(Date.now() + 600_000).toISOString(),
          },
          "pp_payin_rub"
        )
        const html = renderToStaticMarkup(createElement(PayinInstructions, { payin, locale: "en" }))
        expect(html).toContain('data-state="awaiting_payment"')
        expect(html).toContain("2202 2012 3456 7890")
      })

      it("registers every provider instance of the helper, enabled, from the installed package", async () => {
        const headers = await adminHeaders(getContainer(), api)
        const { data } = await api.get("/admin/payments/payment-providers?limit=100", headers)
        const enabled = data.payment_providers.filter((p: any) => p.is_enabled).map((p: any) => p.id)
        expect(enabled).toEqual(expect.arrayContaining(["pp_payin_rub", "pp_payin_kzt"]))
      })

      it("runs the insights rebuild command from the installed package with medusa exec", () => {
        const script = "./node_modules/medusa-plugin-payin/.medusa/server/src/scripts/rebuild-insights.js"
        const out = execFileSync(path.join(root, "node_modules", ".bin", "medusa"), ["exec", script, "restart", "check"], {
          cwd: store,
          encoding: "utf8",
          env: { ...process.env, DATABASE_URL: dbConfig.clientUrl, NODE_OPTIONS: "" },
          timeout: 180_000,
        })
        expect(out).toContain("payin insights: rebuilding from the first pay-in\n")
        expect(out).toMatch(/payin insights: rebuilt 0 pay-ins in \d+ s\n/)
        expect(out).toContain("payin insights: the rollups agree with the ledger (0 pay-ins)\n")
      })

      it("migrates the plugin's module from the built migrations", async () => {
        const rows = await dbConnection.raw("select to_regclass('public.payin_transaction') as t")
        expect(rows.rows[0].t).toBe("payin_transaction")
        const module = getContainer().resolve("payin") as any
        expect(await module.listPayinTransactions({})).toEqual([])
      })
    })
  },
})
