// The published types as a TypeScript store or storefront gets them: `npm pack` the built plugin
// and the sandbox package (npm test builds first; `npm run build` emits the .d.ts next to the JS
// and assembles .medusa/sandbox), install the tarballs into a throw-away project and compile small consumers of every public subpath with the repository's
// own TypeScript under `strict`, for the three module resolutions in use:
// - "node" + commonjs: Medusa's Next.js starter (resolved through `typesVersions`);
// - "node16" + node16: a Medusa store's medusa-config.ts, custom routes and jobs (CommonJS, and an
//   .mts ESM file);
// - "bundler" + esnext: Vite, Next.js with bundler resolution.
// The consumers carry `// @ts-expect-error` lines (a number where a string option is required, a
// missing argument, an unknown locale): with `any` types those would be unused directives, i.e.
// errors. A deliberately broken consumer must fail with exactly its errors.
//
// skipLibCheck: false for the storefront-side subpaths (status, storefront, storefront/react,
// provider-id, client, and the sandbox package) under "node" and "node16", so the shipped declarations themselves
// are type-checked there; under "bundler" (the most lenient) everything is one skipLibCheck: true
// program, which keeps the spec at about half a minute of CPU.
// The server-side subpaths (config, money-path, modules/*, providers/*) are compiled
// with skipLibCheck: true, as a Medusa store's tsconfig (and this repository's) has it: with false,
// Medusa's own declarations fail (@medusajs/utils' BigNumber global, resolution-mode imports in
// @medusajs/types and in @medusajs/deps' zod), none of them this plugin's; the resolution test
// checks that every import of the shipped declarations resolves instead. Nor are they compiled
// under "node": @medusajs/framework has no typesVersions, so "@medusajs/framework/types" itself
// does not resolve there (Medusa servers need node16, nodenext or bundler); the resolution test
// still proves this plugin's typesVersions map every subpath under "node".
import { execFile, execFileSync } from "child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "fs"
import { builtinModules } from "module"
import os from "os"
import path from "path"
import { npmPack, unpackInto } from "../support/packing"

jest.setTimeout(120_000)

const root = path.resolve(__dirname, "..", "..")
const tsc = path.join(root, "node_modules", ".bin", "tsc")
if (!existsSync(path.join(root, ".medusa", "server", "medusa-plugin.config.d.ts"))) {
  throw new Error("the plugin's declarations are not built: run `npm run build` (npm test does) before this spec")
}

// ---------------------------------------------------------------------------------------------
// Consumers
// ---------------------------------------------------------------------------------------------

/** What a storefront imports (no Medusa server packages). */
const BROWSER_TS = `import { SHOPPER_STATES, shopperStateOf, isDisputeStatus, nextStatus, type ShopperState, type LedgerStatus } from "medusa-plugin-payin/status"
import {
  createPayinStoreClient,
  formatAmount,
  fromSessionData,
  getMessages,
  isPayinProvider,
  qrSvg,
  PayinStoreApiError,
  type PayinStatusView,
  type PayinStoreClient,
} from "medusa-plugin-payin/storefront"
import { payinProviderId } from "medusa-plugin-payin/provider-id"

const state: ShopperState = shopperStateOf("closed", { paid: true })
const states: readonly ShopperState[] = SHOPPER_STATES
const ledger: LedgerStatus = "active"
const moved: boolean = nextStatus("active", "closed").changed
export const statusChecks = [state, states, ledger, moved, isDisputeStatus("dispute")]
// @ts-expect-error not a shopper state
export const badState: ShopperState = "refunded"
// @ts-expect-error not a ledger status
nextStatus("active", "paid")

const amount: string = formatAmount("1790.00", "RUB", "ru")
// @ts-expect-error amounts are decimal strings, not numbers
formatAmount(1790, "RUB")
const view: PayinStatusView = fromSessionData({ payin_id: "tx-1" }, "pp_payin_default")
// @ts-expect-error the provider id is required
fromSessionData({ payin_id: "tx-1" })
const store: PayinStoreClient = createPayinStoreClient({ baseUrl: "https://api.shop.example", publishableKey: "pk_1" })
// @ts-expect-error publishableKey must be a string
createPayinStoreClient({ baseUrl: "https://api.shop.example", publishableKey: 1 })
// @ts-expect-error a status query takes a cart_id or an order_id, not both
store.status({ cart_id: "cart_1", order_id: "order_1" })
const title: string = getMessages("ru").title
export const storefrontChecks = [amount, view, title, qrSvg("x")?.path, isPayinProvider("pp_payin_rub"), new PayinStoreApiError(404, null).status]

export const ids: string[] = [payinProviderId("rub")]
// @ts-expect-error payinProviderId takes a string
payinProviderId(1)
`

/** The React component a Next.js storefront renders. */
const BROWSER_TSX = `import { PayinInstructions, PayinLiveInstructions, usePayinStatus, formatAmount, type PayinInstructionsProps } from "medusa-plugin-payin/storefront/react"
import { fromSessionData } from "medusa-plugin-payin/storefront"

const payin = fromSessionData({ payin_id: "tx-1" }, "pp_payin_default")
const fetchStatus = () => fetch("/store/payin/status").then((r) => r.json())

export function Checkout() {
  const { data, loading } = usePayinStatus({ fetchStatus })
  const props: PayinInstructionsProps = { payin, locale: "ru" }
  return (
    <div>
      <PayinInstructions {...props} />
      <PayinInstructions payin={payin} locale="en" unstyled />
      {/* @ts-expect-error "de" is not a built-in locale */}
      <PayinInstructions payin={payin} locale="de" />
      {/* @ts-expect-error payin is required */}
      <PayinInstructions locale="en" />
      <PayinLiveInstructions fetchStatus={fetchStatus} />
      {/* @ts-expect-error fetchStatus must return a promise */}
      <PayinLiveInstructions fetchStatus={() => 1} />
      <p>{loading ? "…" : formatAmount(data?.payin?.amount ?? "0", "RUB")}</p>
    </div>
  )
}
`

/** Node.js tools: the service client and the sandbox package (e.g. in a store's own tests). */
const NODE_TS = `import { PayinClient, PayinServiceError, PAYIN_METHODS, sign, type Transaction } from "medusa-plugin-payin/client"
import { startSandbox, BANKS, type RunningSandbox, type SandboxOptions } from "medusa-plugin-payin-sandbox"

const client = new PayinClient({ baseUrl: "https://pay.example", apiKey: "secret-key", timeoutMs: 5_000 })
// @ts-expect-error apiKey is required
new PayinClient({ baseUrl: "https://pay.example" })
const method: (typeof PAYIN_METHODS)[number] = "card"
// @ts-expect-error not a payment method
export const badMethod: (typeof PAYIN_METHODS)[number] = "cash"
export const clientChecks = [client, method, sign("{}", "key"), (e: PayinServiceError) => e.retryable]

const options: SandboxOptions = { port: 0, apiKey: "sandbox_api_key", webhookUrl: null }
// @ts-expect-error port is a number
startSandbox({ port: "8080" })
export async function firstTransaction(sandbox: RunningSandbox): Promise<Transaction | undefined> {
  return sandbox.transactions()[0]
}
export const sandboxChecks = [options, BANKS[0]?.name, startSandbox(options).then((s) => s.url.toUpperCase())]
`

/** A store: medusa-config.ts, module links, custom routes and jobs. */
const STORE_TS = `import {
  withPayin,
  parseProviderOptions,
  PAYIN_MODULE,
  PACKAGE_NAME,
  type WithPayinOptions,
  type PayinProviderOptions,
} from "medusa-plugin-payin/config"
import { applyPayinEvent, reconcilePayins, receivePayinWebhook, PAYIN_EVENTS, type ReconcileReport } from "medusa-plugin-payin/money-path"
import PayinModule, { PayinModuleService } from "medusa-plugin-payin/modules/payin"
import PayinProvider, { PayinProviderService } from "medusa-plugin-payin/providers/payin"
import type { MedusaContainer } from "@medusajs/framework/types"

const config = withPayin(
  { projectConfig: { http: { jwtSecret: "s", cookieSecret: "s" } } },
  { providers: [{ id: "rub", apiKey: "store-test-key", baseUrl: "https://pay.example", timeoutMs: 10_000 }] }
)
export const plugins = config.plugins
// @ts-expect-error apiKey must be a string
withPayin({}, { providers: [{ id: "rub", apiKey: 12345678 }] })
// @ts-expect-error unknown option
withPayin({}, { reconcileEverySeconds: 60 })
const parsed: PayinProviderOptions = parseProviderOptions({ id: "rub" })
const timeout: number = parsed.timeoutMs
export const configChecks = [timeout, PAYIN_MODULE, PACKAGE_NAME, { source: "./src" } satisfies WithPayinOptions]

export async function job(container: MedusaContainer): Promise<number> {
  const report: ReconcileReport = await reconcilePayins(container)
  // @ts-expect-error the container comes first
  await reconcilePayins()
  return Object.keys(report).length
}
export const moneyPathChecks = [applyPayinEvent, PAYIN_EVENTS, receivePayinWebhook]
export const linkable = PayinModule.linkable.payinTransaction
// @ts-expect-error the module has no such data model
export const missing = PayinModule.linkable.nothing
export const moduleChecks = [PayinModuleService, PayinProvider, PayinProviderService]
`

/** An ES module of a store (node16 resolution, "import" conditions, CommonJS package). */
const STORE_MTS = `import { withPayin } from "medusa-plugin-payin/config"
import { formatAmount } from "medusa-plugin-payin/storefront"
import { shopperStateOf, type ShopperState } from "medusa-plugin-payin/status"

export const state: ShopperState = shopperStateOf("closed")
// @ts-expect-error amounts are decimal strings
formatAmount(1790, "RUB")
// @ts-expect-error apiKey must be a string
withPayin({}, { providers: [{ apiKey: 12345678 }] })
`

/** Each line after the imports is one error, if and only if the types are real. */
const BROKEN_TS = `import { formatAmount } from "medusa-plugin-payin/storefront"
import { PayinClient } from "medusa-plugin-payin/client"
import { shopperStateOf } from "medusa-plugin-payin/status"
export const amount: number = formatAmount("1790.00", "RUB")
formatAmount(1790, "RUB")
new PayinClient({ baseUrl: "https://pay.example" })
shopperStateOf("closed", { paid: "yes" })
`
const BROKEN_TSX = `import { PayinInstructions } from "medusa-plugin-payin/storefront/react"
export const element = <PayinInstructions locale="en" />
`

// ---------------------------------------------------------------------------------------------
// Compiles
// ---------------------------------------------------------------------------------------------

type Compile = { files: string[]; moduleResolution: string; module: string; skipLibCheck: boolean }
const SETTINGS = [
  { moduleResolution: "node", module: "commonjs" },
  { moduleResolution: "node16", module: "node16" },
  { moduleResolution: "bundler", module: "esnext" },
] as const
const STOREFRONT_FILES = ["browser.ts", "browser.tsx", "node.ts"]
const COMPILES: Record<string, Compile> = {}
const [node, node16, bundler] = SETTINGS
COMPILES["storefront.node"] = { ...node, files: STOREFRONT_FILES, skipLibCheck: false }
COMPILES["storefront.node16"] = { ...node16, files: STOREFRONT_FILES, skipLibCheck: false }
COMPILES["store.node16"] = { ...node16, files: ["store.ts", "store.mts"], skipLibCheck: true }
// bundler resolution is the most lenient of the three: the declarations were library-checked
// above already, so one program for everything (a third library check would add ~10 s of CPU)
COMPILES["all.bundler"] = { ...bundler, files: [...STOREFRONT_FILES, "store.ts"], skipLibCheck: true }
COMPILES.broken = { moduleResolution: "node16", module: "node16", files: ["broken.ts", "broken.tsx"], skipLibCheck: true }

function tsconfig({ files, moduleResolution, module, skipLibCheck }: Compile) {
  return {
    compilerOptions: {
      strict: true,
      noEmit: true,
      skipLibCheck,
      // TypeScript's own lib.*.d.ts only; every package's declarations are still checked
      skipDefaultLibCheck: true,
      moduleResolution,
      module,
      target: "es2022",
      lib: ["es2022", "dom"],
      jsx: "react-jsx",
      esModuleInterop: true,
      types: ["node"],
    },
    files,
  }
}

type Result = { code: number; output: string }

/** Runs the compiles two at a time (the machine has two cores). */
function compileAll(dir: string): Map<string, Promise<Result>> {
  const results = new Map<string, Promise<Result>>()
  const queue = Object.keys(COMPILES)
  const resolvers = new Map<string, (r: Result) => void>()
  for (const name of queue) {
    results.set(name, new Promise((resolve) => resolvers.set(name, resolve)))
  }
  const next = () => {
    const name = queue.shift()
    if (!name) return
    execFile(tsc, ["-p", `tsconfig.${name}.json`], { cwd: dir, encoding: "utf8" }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0
      resolvers.get(name)!({ code, output: `${stdout}${stderr}`.trim() })
      next()
    })
  }
  next()
  next()
  return results
}

// ---------------------------------------------------------------------------------------------
// The installed package
// ---------------------------------------------------------------------------------------------

let dir: string
let pluginDir: string
let pkg: any
let compiles: Map<string, Promise<Result>>

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "payin-types-"))
  pluginDir = unpackInto(dir, "medusa-plugin-payin", npmPack(dir))
  // The sandbox is its own package (medusa-plugin-payin-sandbox, assembled in .medusa/sandbox).
  unpackInto(dir, "medusa-plugin-payin-sandbox", npmPack(dir, path.join(root, ".medusa", "sandbox")))
  // Every other package is the repository's own install (react, @types/*, @medusajs/*, zod, hono).
  for (const entry of readdirSync(path.join(root, "node_modules"))) {
    if (entry !== "medusa-plugin-payin" && entry !== "medusa-plugin-payin-sandbox" && !entry.startsWith(".")) {
      symlinkSync(path.join(root, "node_modules", entry), path.join(dir, "node_modules", entry))
    }
  }
  pkg = JSON.parse(readFileSync(path.join(pluginDir, "package.json"), "utf8"))
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "payin-types-consumer", private: true }))
  const sources: Record<string, string> = {
    "browser.ts": BROWSER_TS,
    "browser.tsx": BROWSER_TSX,
    "node.ts": NODE_TS,
    "store.ts": STORE_TS,
    "store.mts": STORE_MTS,
    "broken.ts": BROKEN_TS,
    "broken.tsx": BROKEN_TSX,
  }
  for (const [file, text] of Object.entries(sources)) {
    writeFileSync(path.join(dir, file), text)
  }
  for (const [name, compile] of Object.entries(COMPILES)) {
    writeFileSync(path.join(dir, `tsconfig.${name}.json`), JSON.stringify(tsconfig(compile), null, 2))
  }
  compiles = compileAll(dir)
})

afterAll(async () => {
  if (compiles) await Promise.all(compiles.values())
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** Every shipped file, relative to the package folder. */
function shippedFiles(): string[] {
  return (readdirSync(pluginDir, { recursive: true }) as string[]).filter((f) => !f.startsWith("node_modules"))
}

/** The subpaths a consumer imports, with the declaration file each must resolve to (patterns: every match shipped). */
function typedSubpaths(): [string, string][] {
  const files = shippedFiles()
  const out = new Map<string, string>()
  for (const [key, target] of Object.entries<any>(pkg.exports)) {
    if (typeof target !== "object" || target === null || !target.types) continue
    const [before, after] = target.types.slice(2).split("*")
    const names =
      after === undefined
        ? [""]
        : files.filter((f) => f.startsWith(before) && f.endsWith(after) && !f.slice(before.length, -after.length).includes("/"))
            .map((f) => f.slice(before.length, -after.length))
    for (const name of names) {
      const subpath = key.replace("*", name).slice(2)
      if (!out.has(subpath)) out.set(subpath, target.types.replace("*", name))
    }
  }
  return [...out]
}

describe("the packed plugin's declarations", () => {
  it("gives every public export a types condition, first, to a shipped .d.ts (all but the admin bundle)", () => {
    const files = new Set(shippedFiles())
    for (const [key, target] of Object.entries<any>(pkg.exports)) {
      if (key === "./package.json" || key === "./admin" || target === null) continue
      expect([key, Object.keys(target)]).toEqual([key, ["types", "default"]])
      expect([key, target.types.endsWith(".d.ts"), target.default.endsWith(".js")]).toEqual([key, true, true])
      if (!key.includes("*")) expect([key, files.has(target.types.slice(2))]).toEqual([key, true])
    }
    const subpaths = typedSubpaths().map(([subpath]) => subpath)
    expect(subpaths).toEqual(expect.arrayContaining(["config", "status", "provider-id", "modules/payin", "providers/payin"]))
    // moduleResolution "node" reads typesVersions: one entry per subpath (the .medusa/server one is a real path)
    const patterns = new Set(Object.keys(pkg.exports).filter((k) => k.includes("*")).map((k) => k.slice(2)))
    const expected = subpaths
      .filter((s) => !s.startsWith(".medusa/"))
      .map((s) => [...patterns].find((p) => p !== "*" && s.startsWith(p.replace("*", ""))) ?? s)
    expect(Object.keys(pkg.typesVersions["*"]).sort()).toEqual([...new Set(expected)].sort())
  })

  it("reference only shipped files and only packages a consumer has (dependencies, peer dependencies, Node.js)", () => {
    const files = shippedFiles()
    const shipped = new Set(files)
    const allowed = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies), ...builtinModules])
    const declarations = files.filter((f) => f.endsWith(".d.ts"))
    expect(declarations.length).toBeGreaterThan(50)
    expect(declarations.filter((f) => /__tests__|\.spec\.|\/admin\//.test(f))).toEqual([])
    const problems: string[] = []
    for (const file of declarations) {
      const text = readFileSync(path.join(pluginDir, file), "utf8")
      // `from` not after a dot: a quoted name such as "payin.status.from" (src/telemetry) is not an import
      const pattern = /(?:(?<![\w.$])from\s*|\bimport\s*\(\s*|\bimport\s+|reference\s+(?:path|types)=)["']([^"'\s]+)["']/g
      for (const [, specifier] of text.matchAll(pattern)) {
        if (specifier.startsWith(".")) {
          const base = path.join(path.dirname(file), specifier).replace(/\.js$/, "")
          if (![`${base}.d.ts`, `${base}/index.d.ts`].some((f) => shipped.has(f))) {
            problems.push(`${file}: "${specifier}" is not shipped`)
          }
        } else {
          const name = specifier.replace(/^node:/, "").split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/")
          if (!allowed.has(name)) problems.push(`${file}: "${specifier}" is not a dependency or peer dependency`)
        }
      }
    }
    expect(problems).toEqual([])
  })

  it("resolve from every public subpath, and resolve their imports, under moduleResolution node (typesVersions), node16 and bundler (exports)", () => {
    const ts = require(path.join(root, "node_modules", "typescript"))
    const kinds = [
      { moduleResolution: ts.ModuleResolutionKind.Node10, module: ts.ModuleKind.CommonJS },
      { moduleResolution: ts.ModuleResolutionKind.Node16, module: ts.ModuleKind.Node16 },
      { moduleResolution: ts.ModuleResolutionKind.Bundler, module: ts.ModuleKind.ESNext },
    ]
    const from = path.join(dir, "consumer.ts")
    const declarations = shippedFiles().filter((f) => f.endsWith(".d.ts"))
    const wrong: string[] = []
    for (const options of kinds) {
      const kind = ts.ModuleResolutionKind[options.moduleResolution]
      for (const [subpath, types] of typedSubpaths()) {
        const { resolvedModule } = ts.resolveModuleName(`medusa-plugin-payin/${subpath}`, from, options, ts.sys)
        if (resolvedModule?.resolvedFileName !== realpathSync(path.join(pluginDir, types))) {
          wrong.push(`${kind} ${subpath}: ${resolvedModule?.resolvedFileName}`)
        }
      }
      // the packages the declarations name (zod, react, Medusa's), as the consumer resolves them;
      // not Medusa's under "node": @medusajs/framework has no typesVersions (the storefront side never names it)
      for (const file of declarations) {
        const text = readFileSync(path.join(pluginDir, file), "utf8")
        for (const [, specifier] of text.matchAll(/(?:(?<![\w.$])from\s*|\bimport\s*\(\s*)"([^".\s][^"\s]*)"/g)) {
          if (kind === "Node10" && specifier.startsWith("@medusajs/")) continue
          const { resolvedModule } = ts.resolveModuleName(specifier, path.join(pluginDir, file), options, ts.sys)
          if (!resolvedModule) wrong.push(`${kind} ${file}: "${specifier}" does not resolve`)
        }
      }
    }
    expect(wrong).toEqual([])
  })

  for (const name of Object.keys(COMPILES).filter((n) => n !== "broken")) {
    const { moduleResolution, module, files, skipLibCheck } = COMPILES[name]
    it(`compile a consumer (${files.join(", ")}) under strict, moduleResolution ${moduleResolution}, module ${module}, skipLibCheck ${skipLibCheck}`, async () => {
      const { code, output } = await compiles.get(name)!
      expect({ code, output }).toEqual({ code: 0, output: "" })
    })
  }

  it("fail a broken consumer with its own errors (so the types are not `any`)", async () => {
    const { code, output } = await compiles.get("broken")!
    expect(code).not.toBe(0)
    const errors = output.split("\n").filter((line) => /error TS\d+/.test(line))
    const located = errors.map((line) => line.replace(/^([\w.]+)\((\d+),\d+\): error (TS\d+).*$/, "$1:$2 $3"))
    expect(located).toEqual([
      "broken.ts:4 TS2322", // a string is not a number
      "broken.ts:5 TS2345", // formatAmount takes a decimal string
      "broken.ts:6 TS2345", // apiKey is required
      "broken.ts:7 TS2322", // paid is a boolean
      "broken.tsx:2 TS2741", // payin is required
    ])
  })
})
