import { existsSync, readFileSync } from "fs"
import { join } from "path"

// The dtc-starter guide (src/storefront/README.md, the kit's npm page) and the patch the kit
// ships (guides/dtc-starter.patch) are the same changes: the patch is the guide's diff blocks,
// in order. integration-tests/starter/verify-starter.mjs applies the patch to the pinned starter
// and buys with it.
const KIT = join(__dirname, "..")
const readme = readFileSync(join(KIT, "README.md"), "utf8")
const patch = readFileSync(join(KIT, "guides", "dtc-starter.patch"), "utf8")
const blocks = [...readme.matchAll(/^```diff\n([\s\S]*?)^```$/gm)].map((m) => m[1])

type FileDiff = { path: string; isNew: boolean; added: number; removed: number }
function files(text: string): FileDiff[] {
  return text
    .split(/^(?=diff --git )/m)
    .filter((part) => part.startsWith("diff --git "))
    .map((part) => {
      const lines = part.split("\n")
      const [, a, b] = /^diff --git a\/(\S+) b\/(\S+)$/.exec(lines[0]) ?? []
      const isNew = lines.includes("--- /dev/null")
      expect([lines[0], a === b, lines.includes(isNew ? `+++ b/${b}` : `--- a/${a}`)]).toEqual([lines[0], true, true])
      return {
        path: b,
        isNew,
        added: lines.filter((l) => l.startsWith("+") && !l.startsWith("+++")).length,
        removed: lines.filter((l) => l.startsWith("-") && !l.startsWith("---")).length,
      }
    })
}

describe("the dtc-starter guide", () => {
  it("ships its diff blocks, in order, as guides/dtc-starter.patch", () => {
    expect(blocks.length).toBeGreaterThan(10)
    expect(patch).toBe(blocks.join(""))
  })

  it("has one file per block, in git's format with a/ and b/ paths from the starter's root", () => {
    for (const block of blocks) {
      const diffs = files(block)
      expect(diffs).toHaveLength(1)
      expect(diffs[0].path).toMatch(/^apps\/(backend|storefront)\//)
    }
    const paths = files(patch).map((f) => f.path)
    expect(new Set(paths).size).toBe(paths.length)
  })

  it("states the changed-line count in the starter's existing files, which stays within 100", () => {
    const existing = files(patch).filter((f) => !f.isNew)
    const added = existing.reduce((n, f) => n + f.added, 0)
    const removed = existing.reduce((n, f) => n + f.removed, 0)
    const created = files(patch).filter((f) => f.isNew)
    expect(added + removed).toBeLessThanOrEqual(100)
    expect(readme).toContain(
      `${added + removed} changed lines (${added} added, ${removed} removed) in ${existing.length} files the starter already\nhas, and ${created.length} new files (${created.reduce((n, f) => n + f.added, 0)} lines)`
    )
  })

  it("uses the starter's backend URL variable and keeps its flow", () => {
    expect(patch).not.toMatch(/^\+.*\bMEDUSA_BACKEND_URL\b/m)
    expect(readme).toContain("NEXT_PUBLIC_MEDUSA_BACKEND_URL")
    // the starter's own code stays: its config's http block, checkActiveSession, router.push to review
    expect(patch).not.toMatch(/^-\s+(http|storeCors|adminCors|authCors|jwtSecret|cookieSecret)\b/m)
    expect(patch).toMatch(/^\+\s+const checkActiveSession = payin\.keeps\(selectedPaymentMethod\)$/m)
    expect(patch).not.toMatch(/^-.*router\.push/m)
    expect(patch).not.toMatch(/^-.*revalidateTag/m)
    expect(patch).toContain("allowedRedirectOrigins")
    expect(patch).toContain('"pp_system_default", "pp_payin_default"')
  })

  it("names PAYIN_ENCRYPTION_KEY in the backend's .env.template and says how to make one", () => {
    const template = files(patch).find((f) => f.path === "apps/backend/.env.template")
    expect(template).toBeDefined()
    expect(patch).toMatch(/^\+PAYIN_ENCRYPTION_KEY=$/m)
    expect(readme).toContain("openssl rand -base64 32")
  })

  it("keeps the sandbox's data file (it holds the API key) out of git", () => {
    // the file the guide's sandbox command writes, relative to apps/backend where it runs
    const data = /pnpm exec payin-sandbox .*--data (\S+)/.exec(readme)?.[1]
    expect(data).toBe(".payin-sandbox.json")
    const gitignore = patch.split(/^(?=diff --git )/m).find((part) => part.startsWith("diff --git a/apps/backend/.gitignore "))
    expect(gitignore?.split("\n")).toContain(`+${data}`)
  })

  it("gives the pay-in's payment option a test id, listed in the test id table", () => {
    expect(patch).toMatch(/^\+.*<div key=\{paymentMethod\.id\} data-testid=\{isPayinProvider\(paymentMethod\.id\) \? "payin-payment-option" : undefined\}>$/m)
    // every payin-* test id the patch sets is documented
    const ids = [...patch.matchAll(/^\+.*data-testid=.*?"(payin-[\w-]+)"/gm)].map((m) => m[1])
    expect(ids).toContain("payin-payment-option")
    for (const id of ids) expect([id, readme.includes(`| \`${id}\` |`)]).toEqual([id, true])
  })

  it("installs tarballs by a path inside the store's repository, not an absolute one", () => {
    // an absolute file: path in package.json breaks the install of .medusa/server on another machine
    const adds = [...readme.matchAll(/^pnpm .*\badd\b.*\.tgz.*$/gm)].map((m) => m[0])
    expect(adds).toHaveLength(3)
    for (const line of adds) expect(line).toMatch(/ \.\/vendor\/medusa-plugin-payin[\w-]*-<version>\.tgz$/)
    expect(readme).toContain("cp -r vendor .medusa/server/")
  })
})

// CI's Next.js app (integration-tests/storefront-next, built and driven in Chromium by
// integration-tests/browser/next-storefront.spec.ts) uses the kit as the patch does, so what CI
// proves is what the guide ships.
describe("integration-tests/storefront-next follows the guide", () => {
  const app = join(KIT, "..", "..", "integration-tests", "storefront-next")
  const storefrontDiffs = patch.split(/^(?=diff --git )/m).filter((part) => part.startsWith("diff --git a/apps/storefront/"))
  const pathOf = (part: string) => /^diff --git a\/apps\/storefront\/(\S+) /.exec(part)![1]
  /** The kit's names a diff's added lines import, e.g. ["PayinBankMethodSelect", "usePayinChoice"]. */
  const kitImports = (text: string) =>
    [...text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+"medusa-plugin-payin-storefront(?:\/react)?"/g)]
      .flatMap((m) => m[1].split(","))
      .map((name) => name.replace(/^\s*type\s+/, "").trim())
      .filter(Boolean)
      .sort()

  it("has the pay-in option's test id", () => {
    const text = readFileSync(join(app, "src/modules/checkout/components/payment/index.tsx"), "utf8")
    expect(text).toContain('data-testid={isPayinProvider(paymentMethod.id) ? "payin-payment-option" : undefined}')
  })

  it("has the patch's new files verbatim", () => {
    const created = storefrontDiffs.filter((part) => part.includes("--- /dev/null"))
    expect(created.map(pathOf)).toEqual(["src/lib/data/payin.ts", "src/app/[countryCode]/(main)/payin-return/route.ts"])
    for (const part of created) {
      const body = part.split("\n").filter((l) => l.startsWith("+") && !l.startsWith("+++")).map((l) => l.slice(1)).join("\n") + "\n"
      expect([pathOf(part), readFileSync(join(app, pathOf(part)), "utf8")]).toEqual([pathOf(part), body])
    }
  })

  it("imports the same kit components and helpers in the files the patch changes", () => {
    for (const part of storefrontDiffs.filter((p) => !p.includes("--- /dev/null"))) {
      const added = part.split("\n").filter((l) => l.startsWith("+") && !l.startsWith("+++")).map((l) => l.slice(1)).join("\n")
      const file = join(app, pathOf(part))
      expect([pathOf(part), existsSync(file)]).toEqual([pathOf(part), true])
      const text = readFileSync(file, "utf8")
      expect([pathOf(part), kitImports(text)]).toEqual([pathOf(part), kitImports(added)])
      // and the same test ids and kit calls as the patch's lines
      for (const call of added.match(/\bpayin\.\w+\(|<Payin\w+|data-testid=\{?"?[\w-]+|\bpayin\w*Of\(|payinReturnOrderId\(|retrievePayinStatus\.bind/g) ?? []) {
        expect([pathOf(part), call, text.includes(call)]).toEqual([pathOf(part), call, true])
      }
    }
  })
})
