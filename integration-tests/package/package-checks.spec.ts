// `npm run pack` and `npm run check:packages` as CI runs them (npm test builds first): the three
// tarballs in the documented order and format, and publint + @arethetypeswrong/cli over each with
// no error, warning or problem, on the entry points a consumer imports (not a vacuous pass). A
// deliberately broken copy of the storefront kit (a types condition naming a file the tarball
// does not have) must fail both tools, so the check can fail.
import { execFileSync, spawnSync } from "child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "fs"
import os from "os"
import path from "path"

jest.setTimeout(180_000)

const root = path.resolve(__dirname, "..", "..")
const PACK = path.join(root, "integration-tests", "build", "pack.mjs")
const CHECK = path.join(root, "integration-tests", "build", "check-packages.mjs")
if (!existsSync(path.join(root, ".medusa", "sandbox", "package.json")) || !existsSync(path.join(root, ".medusa", "storefront", "package.json"))) {
  throw new Error("the packages are not built: run `npm run build` (npm test does) before this spec")
}

const work = mkdtempSync(path.join(os.tmpdir(), "payin-pack-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))

type Result = {
  name: string
  ok: boolean
  publint: { errors: string[]; warnings: string[]; suggestions: string[]; accepted: string[]; codes: string[] }
  attw: { entrypoints: string[]; problems: string[]; accepted: string[] }
}

function check(tarballs: string[]): { code: number | null; results: Result[]; stderr: string } {
  const run = spawnSync(process.execPath, [CHECK, "--json", ...tarballs], { cwd: root, encoding: "utf8" })
  return { code: run.status, results: run.stdout ? JSON.parse(run.stdout) : [], stderr: run.stderr }
}

describe("npm run pack + npm run check:packages", () => {
  let tarballs: string[]

  beforeAll(() => {
    const out = path.join(work, "out")
    const stdout = execFileSync(process.execPath, [PACK, "--out", out], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
    tarballs = stdout.split("\n").filter(Boolean)
  })

  it("prints the three tarballs' absolute paths, one per line, plugin first, then the kit and the sandbox", () => {
    const version = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).version
    expect(tarballs.map((t) => path.basename(t))).toEqual([
      `medusa-plugin-payin-${version}.tgz`,
      `medusa-plugin-payin-storefront-${version}.tgz`,
      `medusa-plugin-payin-sandbox-${version}.tgz`,
    ])
    for (const tarball of tarballs) {
      expect(path.isAbsolute(tarball)).toBe(true)
      expect(statSync(tarball).size).toBeGreaterThan(10_000)
    }
  })

  it("passes publint and attw on every tarball, with every consumer-facing entry point analysed", () => {
    const { code, results, stderr } = check(tarballs)
    const summary = results.map((r) => ({ name: r.name, errors: r.publint.errors, warnings: r.publint.warnings, attw: r.attw.problems }))
    expect({ summary, stderr }).toEqual({
      summary: [
        { name: "medusa-plugin-payin", errors: [], warnings: [], attw: [] },
        { name: "medusa-plugin-payin-storefront", errors: [], warnings: [], attw: [] },
        { name: "medusa-plugin-payin-sandbox", errors: [], warnings: [], attw: [] },
      ],
      stderr: "",
    })
    expect(code).toBe(0)
    const [plugin, kit, sandbox] = results
    expect(plugin.attw.entrypoints).toEqual(
      expect.arrayContaining(["./config", "./money-path", "./status", "./client", "./storefront", "./storefront/react", "./modules/payin", "./providers/payin", "./provider-id", "./error-code"])
    )
    // the old alias of ./money-path is gone (0.x: nobody used it)
    expect(plugin.attw.entrypoints).not.toContain("./workflows")
    // Medusa's admin bundle has no declarations to judge: excluded on purpose (see check-packages.mjs)
    expect(plugin.attw.entrypoints).not.toContain("./admin")
    // the only findings let through: Medusa's require(...).default contract, on the files Medusa loads
    for (const finding of [...plugin.publint.accepted, ...plugin.attw.accepted]) {
      expect(finding).toMatch(/^(CJS_WITH_ESMODULE_DEFAULT_EXPORT \/\.medusa\/server\/src\/(subscribers|jobs|modules|providers)\/|CJSOnlyExportsDefault \S*\/\.medusa\/server\/src\/(modules|providers)\/payin\/index\.js$)/)
    }
    expect([...kit.publint.accepted, ...kit.attw.accepted, ...sandbox.publint.accepted, ...sandbox.attw.accepted]).toEqual([])
    expect(kit.attw.entrypoints).toEqual(expect.arrayContaining([".", "./react"]))
    expect(sandbox.attw.entrypoints).toEqual(expect.arrayContaining(["."]))
  })

  it("fails a package whose types condition names a file it does not ship", () => {
    const broken = path.join(work, "broken")
    mkdirSync(broken)
    execFileSync("tar", ["-xzf", tarballs[1], "-C", broken, "--strip-components=1"])
    const pkg = JSON.parse(readFileSync(path.join(broken, "package.json"), "utf8"))
    pkg.name = "broken-kit"
    pkg.exports["./react"].types = "./lib/storefront/react/missing.d.ts"
    writeFileSync(path.join(broken, "package.json"), JSON.stringify(pkg, null, 2))
    const name = execFileSync("npm", ["pack", "--silent", "--pack-destination", work, broken], { cwd: work, encoding: "utf8" }).trim().split("\n").pop()!
    const { code, results } = check([path.join(work, name)])
    expect(code).toBe(1)
    expect(results[0].ok).toBe(false)
    expect(results[0].publint.codes).toContain("FILE_DOES_NOT_EXIST")
    expect(results[0].publint.errors.length).toBeGreaterThan(0)
    expect(results[0].attw.problems.length).toBeGreaterThan(0)
  })
})
