// What the two extra packages of `npm run build` (the storefront kit, the sandbox) share: a
// manifest that agrees with the plugin's package.json, the closure of relative requires from their
// entries in .medusa/server (with the declarations beside them), and the package folder written
// from it (the files under lib/ at their paths below src/, package.json with the plugin's version).
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "fs"
import { builtinModules } from "module"
import path from "path"
import { fileURLToPath } from "url"

export const root = fileURLToPath(new URL("../..", import.meta.url))
export const built = path.join(root, ".medusa", "server")
export const plugin = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"))

/** The package's manifest (src/<folder>/package.json) and what disagrees with the plugin's. */
export function readManifest(folder, { devDependenciesToo = false } = {}) {
  const where = `src/${folder}/package.json`
  const manifest = JSON.parse(readFileSync(path.join(root, "src", folder, "package.json"), "utf8"))
  const problems = []
  for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
    const own = plugin.dependencies?.[name] ?? (devDependenciesToo ? plugin.devDependencies?.[name] : undefined)
    if (own !== range) problems.push(`${where} wants ${name}@${range}, the plugin has ${own ?? "none"}: keep them equal`)
  }
  if (JSON.stringify(manifest.engines) !== JSON.stringify(plugin.engines)) {
    problems.push(`${where} engines differ from the plugin's: keep them equal`)
  }
  return { manifest, where, problems }
}

const packageOf = (specifier) => {
  const parts = specifier.replace(/^node:/, "").split("/")
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]
}

/**
 * Every built file reachable from `entries` ([file, typed] pairs: a typed entry's files must have
 * declarations), by require() in the JS and import in the declarations; a package not declared by
 * the manifest, a relative require the build did not write, or a path outside src/ is a problem.
 */
export function closure(entries, { manifest, where }, problems) {
  const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {}), ...builtinModules])
  const resolveRelative = (from, specifier) => {
    const base = path.resolve(path.dirname(from), specifier)
    for (const candidate of [base, `${base}.js`, path.join(base, "index.js")]) {
      if (candidate.endsWith(".js") && existsSync(candidate)) return candidate
    }
    problems.push(`${path.relative(root, from)} requires "${specifier}", which the build did not write`)
    return null
  }
  const files = new Set()
  const queue = [...entries]
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
          problems.push(`${path.relative(root, file)} requires "${specifier}", which ${where} does not declare`)
        }
      }
    }
  }
  return files
}

/** Writes the package folder `out`: lib/ from `files`, package.json, the folder's README.md. */
export function writePackage(out, folder, manifest, files, shipped) {
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
    `${JSON.stringify({ name, version: plugin.version, description, ...rest, files: shipped }, null, 2)}\n`
  )
  copyFileSync(path.join(root, "src", folder, "README.md"), path.join(out, "README.md"))
  return { lib, name }
}
