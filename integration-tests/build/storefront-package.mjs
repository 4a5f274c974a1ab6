// Third step of `npm run build`: assembles the storefront kit as its own npm package,
// `medusa-plugin-payin-storefront`, in .medusa/storefront (publish with
// `npm publish ./.medusa/storefront`). A storefront then installs the kit and qrcode-generator
// only, not the plugin's server dependencies (zod, undici, hono).
//
// The package is defined by src/storefront/package.json (name, entries, dependencies) and
// src/storefront/README.md, and it ships src/storefront/guides/*.patch under guides/. Its files
// are the ones `medusa plugin:build` and the declaration pass already wrote to .medusa/server
// (the same files `medusa-plugin-payin/storefront` serves): the closure of relative requires from
// the two entries, kept at their relative paths under lib/.
// The build fails when a shipped file requires a package the kit does not declare, or when the
// kit's shared ranges drift from the plugin's own package.json.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "fs"
import { builtinModules } from "module"
import path from "path"
import { fileURLToPath } from "url"

const root = fileURLToPath(new URL("../..", import.meta.url))
const built = path.join(root, ".medusa", "server")
const out = path.join(root, ".medusa", "storefront")
const plugin = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"))
const manifest = JSON.parse(readFileSync(path.join(root, "src", "storefront", "package.json"), "utf8"))
const problems = []

for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
  if (plugin.dependencies?.[name] !== range) {
    problems.push(`src/storefront/package.json wants ${name}@${range}, the plugin has ${plugin.dependencies?.[name] ?? "none"}: keep them equal`)
  }
}
if (JSON.stringify(manifest.engines) !== JSON.stringify(plugin.engines)) {
  problems.push("src/storefront/package.json engines differ from the plugin's: keep them equal")
}

const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {}), ...builtinModules])
const packageOf = (specifier) => {
  const parts = specifier.replace(/^node:/, "").split("/")
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]
}
const resolveRelative = (from, specifier) => {
  const base = path.resolve(path.dirname(from), specifier)
  for (const candidate of [base, `${base}.js`, path.join(base, "index.js")]) {
    if (candidate.endsWith(".js") && existsSync(candidate)) return candidate
  }
  problems.push(`${path.relative(root, from)} requires "${specifier}", which the build did not write`)
  return null
}

// Every file reachable from the entries, by require() in the JS and import in the declarations.
const entries = ["src/storefront/index.js", "src/storefront/react/index.js"].map((f) => path.join(built, f))
const files = new Set()
const queue = [...entries]
while (queue.length) {
  const file = queue.pop()
  if (files.has(file)) continue
  if (!existsSync(file)) {
    problems.push(`${path.relative(root, file)} is missing: run \`medusa plugin:build\` and the declaration pass first`)
    continue
  }
  files.add(file)
  const declaration = file.replace(/\.js$/, ".d.ts")
  const sources = [readFileSync(file, "utf8")]
  if (existsSync(declaration)) {
    files.add(declaration)
    sources.push(readFileSync(declaration, "utf8"))
  } else {
    problems.push(`${path.relative(root, declaration)} is missing: run the declaration pass first`)
  }
  for (const text of sources) {
    for (const [, specifier] of text.matchAll(/(?:\brequire\(\s*|\bfrom\s*|\bimport\s*\(\s*)["']([^"']+)["']/g)) {
      if (specifier.startsWith(".")) {
        const target = resolveRelative(file, specifier)
        if (target && !path.relative(built, target).startsWith("src")) problems.push(`${path.relative(root, file)} reaches outside src/`)
        if (target) queue.push(target)
      } else if (!declared.has(packageOf(specifier))) {
        problems.push(`${path.relative(root, file)} requires "${specifier}", which src/storefront/package.json does not declare`)
      }
    }
  }
}

if (problems.length) {
  console.error(`storefront package: ${problems.join("\n")}`)
  process.exit(1)
}

rmSync(out, { recursive: true, force: true })
const lib = path.join(out, "lib")
for (const file of files) {
  const target = path.join(lib, path.relative(path.join(built, "src"), file))
  mkdirSync(path.dirname(target), { recursive: true })
  copyFileSync(file, target)
}
const { name, description, ...rest } = manifest
writeFileSync(
  path.join(out, "package.json"),
  `${JSON.stringify({ name, version: plugin.version, description, ...rest, files: ["lib", "guides", "README.md"] }, null, 2)}\n`
)
copyFileSync(path.join(root, "src", "storefront", "README.md"), path.join(out, "README.md"))
// The storefront guides' patches (README.md's diff blocks, one file per starter), for
// `git apply node_modules/medusa-plugin-payin-storefront/guides/<starter>.patch`.
const guides = path.join(root, "src", "storefront", "guides")
mkdirSync(path.join(out, "guides"), { recursive: true })
for (const file of readdirSync(guides).filter((f) => f.endsWith(".patch"))) {
  copyFileSync(path.join(guides, file), path.join(out, "guides", file))
}
console.log(`storefront package: ${name}@${plugin.version} in ${path.relative(root, out)} (${files.size} files)`)
