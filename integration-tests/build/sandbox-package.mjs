// Fourth step of `npm run build`: assembles the sandbox as its own npm package,
// `medusa-plugin-payin-sandbox`, in .medusa/sandbox (publish with `npm publish ./.medusa/sandbox`).
// It carries the `payin-sandbox` command and `startSandbox()`, with the sandbox's HTTP server
// (hono, @hono/node-server) as its own dependencies: a production store installs the plugin
// without them, a developer adds this package where the sandbox runs (a store's devDependencies,
// a CI job, `npx`).
//
// The package is defined by src/sandbox/package.json (name, bin, entries, dependencies) and
// src/sandbox/README.md. Its files are the ones `medusa plugin:build` and the declaration pass
// already wrote to .medusa/server: the closure of relative requires from the library entry and
// the command, kept at their relative paths under lib/ (the sandbox shares src/client's schemas
// and signature code with the plugin). The build fails when a shipped file requires a package the
// sandbox does not declare, when a declared range differs from the plugin's own package.json
// (dependencies or devDependencies: the repository's tests run the same versions), or when the
// command lost its shebang.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "fs"
import { builtinModules } from "module"
import path from "path"
import { fileURLToPath } from "url"

const root = fileURLToPath(new URL("../..", import.meta.url))
const built = path.join(root, ".medusa", "server")
const out = path.join(root, ".medusa", "sandbox")
const plugin = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"))
const manifest = JSON.parse(readFileSync(path.join(root, "src", "sandbox", "package.json"), "utf8"))
const problems = []

for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
  const own = plugin.dependencies?.[name] ?? plugin.devDependencies?.[name]
  if (own !== range) {
    problems.push(`src/sandbox/package.json wants ${name}@${range}, the plugin has ${own ?? "none"}: keep them equal`)
  }
}
if (JSON.stringify(manifest.engines) !== JSON.stringify(plugin.engines)) {
  problems.push("src/sandbox/package.json engines differ from the plugin's: keep them equal")
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

// The library entry first (every file it reaches needs its declaration), then the command (the
// files only it reaches have none: nothing imports them, and the declaration pass starts from the
// library entry).
const library = path.join(built, "src", "sandbox", "index.js")
const command = path.join(built, "src", "sandbox", "cli.js")
const files = new Set()
const queue = [[command, false], [library, true]]
while (queue.length) {
  const [file, typed] = queue.pop()
  if (files.has(file)) continue
  if (!existsSync(file)) {
    problems.push(`${path.relative(root, file)} is missing: run \`medusa plugin:build\` and the declaration pass first`)
    continue
  }
  files.add(file)
  const sources = [readFileSync(file, "utf8")]
  const declaration = file.replace(/\.js$/, ".d.ts")
  if (existsSync(declaration)) {
    files.add(declaration)
    sources.push(readFileSync(declaration, "utf8"))
  } else if (typed) {
    problems.push(`${path.relative(root, declaration)} is missing: run the declaration pass first`)
  }
  for (const text of sources) {
    for (const [, specifier] of text.matchAll(/(?:\brequire\(\s*|\bfrom\s*|\bimport\s*\(\s*)["']([^"']+)["']/g)) {
      if (specifier.startsWith(".")) {
        const target = resolveRelative(file, specifier)
        if (target && !path.relative(built, target).startsWith("src")) problems.push(`${path.relative(root, file)} reaches outside src/`)
        if (target) queue.push([target, typed])
      } else if (!declared.has(packageOf(specifier))) {
        problems.push(`${path.relative(root, file)} requires "${specifier}", which src/sandbox/package.json does not declare`)
      }
    }
  }
}
if (existsSync(command) && !readFileSync(command, "utf8").startsWith("#!/usr/bin/env node\n")) {
  problems.push(`${path.relative(root, command)} does not start with "#!/usr/bin/env node"`)
}
const bin = Object.values(manifest.bin ?? {})
if (bin.length !== 1 || path.join(built, bin[0].replace(/^lib\//, "src/")) !== command) {
  problems.push(`src/sandbox/package.json's bin must name lib/sandbox/cli.js, got ${JSON.stringify(manifest.bin)}`)
}

if (problems.length) {
  console.error(`sandbox package: ${problems.join("\n")}`)
  process.exit(1)
}

rmSync(out, { recursive: true, force: true })
const lib = path.join(out, "lib")
for (const file of files) {
  const target = path.join(lib, path.relative(path.join(built, "src"), file))
  mkdirSync(path.dirname(target), { recursive: true })
  copyFileSync(file, target)
}
chmodSync(path.join(lib, "sandbox", "cli.js"), 0o755)
const { name, description, ...rest } = manifest
writeFileSync(
  path.join(out, "package.json"),
  `${JSON.stringify({ name, version: plugin.version, description, ...rest, files: ["lib", "README.md"] }, null, 2)}\n`
)
copyFileSync(path.join(root, "src", "sandbox", "README.md"), path.join(out, "README.md"))
console.log(`sandbox package: ${name}@${plugin.version} in ${path.relative(root, out)} (${files.size} files)`)
