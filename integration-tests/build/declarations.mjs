// Second step of `npm run build`, after `tsc -p integration-tests/build/tsconfig.declarations.json`
// wrote the .d.ts files next to the built JS in .medusa/server. It makes them name only packages a
// store or storefront has, and fails the build otherwise:
// - tsc names Medusa's shared types after the package that declares them, "@medusajs/types" (a
//   dependency of @medusajs/framework, not of this plugin: under pnpm a store cannot resolve it);
//   @medusajs/framework (a peer dependency) re-exports the same types as "@medusajs/framework/types";
// - every other package a declaration imports must be a dependency, a peer dependency or a
//   Node.js built-in; under src/sandbox (shipped only in the sandbox package, see
//   sandbox-package.mjs), a dependency of src/sandbox/package.json too.
import { readdirSync, readFileSync, writeFileSync } from "fs"
import { builtinModules } from "module"
import path from "path"
import { fileURLToPath } from "url"

const root = fileURLToPath(new URL("../..", import.meta.url))
const out = path.join(root, ".medusa", "server")
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"))
const allowed = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {}), ...builtinModules])
const sandbox = JSON.parse(readFileSync(path.join(root, "src", "sandbox", "package.json"), "utf8"))
const allowedInSandbox = new Set([...allowed, ...Object.keys(sandbox.dependencies ?? {})])
const sandboxDir = path.join(out, "src", "sandbox") + path.sep

const packageOf = (specifier) => {
  const bare = specifier.replace(/^node:/, "")
  const parts = bare.split("/")
  return bare.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]
}

const problems = []
let count = 0
for (const entry of readdirSync(out, { recursive: true })) {
  const file = path.join(out, entry)
  if (!file.endsWith(".d.ts")) continue
  count++
  const before = readFileSync(file, "utf8")
  const text = before.replace(/(["'])@medusajs\/types\1/g, "$1@medusajs/framework/types$1")
  if (text !== before) writeFileSync(file, text)
  // `from` not after a dot: a quoted name such as "payin.status.from" is not an import
  for (const [, specifier] of text.matchAll(/(?:(?<![\w.$])from\s*|\bimport\s*\(\s*|\bimport\s+|reference\s+types=)["']([^"'\s]+)["']/g)) {
    if (!specifier.startsWith(".") && !(file.startsWith(sandboxDir) ? allowedInSandbox : allowed).has(packageOf(specifier))) {
      problems.push(`${path.relative(root, file)} imports "${specifier}", which is not a dependency or peer dependency`)
    }
  }
}
if (count === 0) problems.push(`no .d.ts in ${path.relative(root, out)}: run tsc -p integration-tests/build/tsconfig.declarations.json first`)
if (problems.length) {
  console.error(problems.join("\n"))
  process.exit(1)
}
