// `npm run check:packages`: lints the tarballs `npm run pack` wrote (every .tgz in .pack/, or the
// tarballs named on the command line) with publint and @arethetypeswrong/cli (`attw <tarball>`,
// the same analysis as `attw --pack <dir>`): the files package.json names exist in the tarball,
// exports conditions are ordered and typed, and every entry point's types resolve under node10,
// node16 (CommonJS and ESM importers) and bundler resolution to declarations of the module
// format the JS has. Exits 1 on any publint error or warning and any attw problem, except the
// findings accepted below (each named, counted and printed as "accepted"); prints one summary
// line per tarball with the messages under it, or with `--json` the results as JSON.
//
// Entry points attw checks:
// - the plugin: its exact entry points, plus one instance of each wildcard (attw does not expand
//   patterns): `./modules/payin`, `./providers/payin`, `./provider-id`, `./error-code`.
//   `./admin` is excluded: it is Medusa's admin-extension bundle (`medusa plugin:build` writes
//   index.mjs/index.js without declarations, and only Medusa's admin bundler imports it, as
//   external code of the store's dashboard build), so attw has no types to judge there.
// - the storefront kit and the sandbox: every entry point they export.
//
// Accepted findings (the plugin only): Medusa's loaders read a plugin's modules, payment
// providers, subscribers, scheduled jobs and module loaders as CommonJS `require(file).default`,
// so those files must keep `exports.default` + `__esModule` (tsc's CommonJS output of
// `export default`). An ESM importer of `medusa-plugin-payin/modules/payin` or
// `/providers/payin` gets Medusa's module definition as `.default` of the default import; the
// declarations say so (strict tsc consumers under node16 and bundler compile in types.spec.ts),
// and stores reference these entries by name in medusa-config (`withPayin()` does it), never by
// default import. publint reports that shape as CJS_WITH_ESMODULE_DEFAULT_EXPORT (a warning,
// found through the `./*` pattern) and attw as CJSOnlyExportsDefault (`cjs-only-exports-default`).
// Any other warning or problem, or this one on another file, fails the check.
import { execFile, spawn } from "child_process"
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from "fs"
import os from "os"
import path from "path"
import { fileURLToPath } from "url"
import { promisify } from "util"
import { publint } from "publint"
import { formatMessage } from "publint/utils"

const root = fileURLToPath(new URL("../..", import.meta.url))
const attwBin = path.join(root, "node_modules", "@arethetypeswrong", "cli", "dist", "index.js")

/** Medusa-loaded files (default export read by Medusa's loaders), as publint names them. */
const MEDUSA_LOADED = /^\/\.medusa\/server\/src\/(subscribers\/[^/]+|jobs\/[^/]+|modules\/[^/]+\/(service|index|loaders\/[^/]+)|providers\/[^/]+\/(service|index))\.js$/

/** Per package: attw's entry point options and the accepted findings (see above). */
export const POLICY = {
  "medusa-plugin-payin": {
    attwArgs: ["--exclude-entrypoints", "./admin", "--include-entrypoints", "./modules/payin", "./providers/payin", "./provider-id", "./error-code"],
    acceptPublint: (m) => m.code === "CJS_WITH_ESMODULE_DEFAULT_EXPORT" && MEDUSA_LOADED.test(m.args?.filePath ?? ""),
    acceptAttw: (p) => p.kind === "CJSOnlyExportsDefault" && /\/\.medusa\/server\/src\/(modules|providers)\/payin\/index\.js$/.test(p.fileName ?? ""),
  },
  "medusa-plugin-payin-storefront": {},
  "medusa-plugin-payin-sandbox": {},
}

/** The package name inside a tarball, from its package.json. */
async function packageName(tarball) {
  const { stdout } = await promisify(execFile)("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" })
  return JSON.parse(stdout).name
}

/** publint over the tarball (its own file list), every level. */
export async function runPublint(tarball) {
  const data = readFileSync(tarball)
  const buffer = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)
  const { messages, pkg } = await publint({ pack: { tarball: buffer }, level: "suggestion", strict: false })
  return messages.map((m) => ({ type: m.type, code: m.code, args: m.args, text: formatMessage(m, pkg) ?? m.code }))
}

/**
 * attw's CLI over the tarball, JSON report: the entry points it analysed and its problems. The
 * report goes to a file: attw exits right after writing, and a report of a few hundred KB written
 * to a pipe would be cut short.
 */
export async function runAttw(tarball, args = []) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "payin-attw-"))
  const reportFile = path.join(dir, "report.json")
  const fd = openSync(reportFile, "w")
  try {
    const child = spawn(process.execPath, [attwBin, tarball, "--format", "json", "--no-color", ...args], { stdio: ["ignore", fd, "pipe"] })
    let stderr = ""
    child.stderr.on("data", (c) => (stderr += c))
    const code = await new Promise((resolve) => child.once("close", resolve))
    closeSync(fd)
    const text = readFileSync(reportFile, "utf8")
    if (code !== 0 && code !== 1) throw new Error(`attw exited with ${code}: ${stderr}${text.slice(0, 2000)}`)
    const report = JSON.parse(text)
    const entrypoints = Object.keys(report.analysis?.entrypoints ?? {})
    // the CLI groups problems by kind ({ [kind]: problem[] }); core returns a flat list
    const raw = report.problems ?? report.analysis?.problems ?? []
    const problems = (Array.isArray(raw) ? raw : Object.values(raw).flat()).map((p) => ({
      kind: p.kind,
      fileName: p.fileName,
      entrypoint: p.entrypoint,
      resolutionKind: p.resolutionKind,
      text: `${p.kind}${p.entrypoint ? ` ${p.entrypoint}` : ""}${p.resolutionKind ? ` (${p.resolutionKind})` : ""}${p.fileName ? ` ${p.fileName}` : ""}`,
    }))
    if (code === 1 && problems.length === 0) throw new Error(`attw exited with 1 without a problem in its report: ${stderr}`)
    return { entrypoints, problems }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Both tools over one tarball, the package's policy applied. */
export async function checkTarball(tarball) {
  const name = await packageName(tarball)
  const policy = POLICY[name] ?? {}
  const [messages, types] = await Promise.all([runPublint(tarball), runAttw(tarball, policy.attwArgs)])
  const acceptedPublint = messages.filter((m) => m.type !== "suggestion" && policy.acceptPublint?.(m))
  const acceptedAttw = types.problems.filter((p) => policy.acceptAttw?.(p))
  const publintResult = {
    errors: messages.filter((m) => m.type === "error" && !acceptedPublint.includes(m)).map((m) => m.text),
    warnings: messages.filter((m) => m.type === "warning" && !acceptedPublint.includes(m)).map((m) => m.text),
    suggestions: messages.filter((m) => m.type === "suggestion").map((m) => m.text),
    accepted: acceptedPublint.map((m) => `${m.code} ${m.args?.filePath ?? ""}`.trim()),
    codes: messages.map((m) => m.code),
  }
  const attwResult = {
    entrypoints: types.entrypoints,
    problems: types.problems.filter((p) => !acceptedAttw.includes(p)).map((p) => p.text),
    accepted: acceptedAttw.map((p) => p.text),
  }
  const ok = publintResult.errors.length === 0 && publintResult.warnings.length === 0 && attwResult.problems.length === 0
  return { name, tarball, ok, publint: publintResult, attw: attwResult }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2)
  const json = args.includes("--json")
  let tarballs = args.filter((a) => a !== "--json").map((t) => path.resolve(t))
  if (tarballs.length === 0) {
    const dir = path.join(root, ".pack")
    tarballs = (existsSync(dir) ? readdirSync(dir) : []).filter((f) => f.endsWith(".tgz")).map((f) => path.join(dir, f)).sort()
  }
  if (tarballs.length === 0) {
    console.error("check-packages: no tarballs (run `npm run pack`, or name them)")
    process.exit(2)
  }
  const results = []
  for (const tarball of tarballs) results.push(await checkTarball(tarball))
  if (json) {
    console.log(JSON.stringify(results, null, 2))
  } else {
    for (const { name, ok, publint: p, attw: a } of results) {
      const accepted = p.accepted.length + a.accepted.length ? ` (accepted: ${p.accepted.length} publint, ${a.accepted.length} attw)` : ""
      console.log(
        `${ok ? "ok  " : "FAIL"} ${name}: publint ${p.errors.length} errors, ${p.warnings.length} warnings, ${p.suggestions.length} suggestions; ` +
          `attw ${a.problems.length} problems in ${a.entrypoints.length} entry points${accepted}`
      )
      for (const text of p.errors) console.log(`  publint error: ${text}`)
      for (const text of p.warnings) console.log(`  publint warning: ${text}`)
      for (const text of p.suggestions) console.log(`  publint suggestion: ${text}`)
      for (const text of a.problems) console.log(`  attw: ${text}`)
      for (const text of [...p.accepted, ...a.accepted]) console.log(`  accepted (Medusa loads it as require(…).default): ${text}`)
      console.log(`  attw entry points: ${a.entrypoints.join(" ")}`)
    }
  }
  process.exit(results.every((r) => r.ok) ? 0 : 1)
}
