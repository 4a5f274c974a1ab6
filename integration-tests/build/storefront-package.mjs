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
import { copyFileSync, mkdirSync, readdirSync } from "fs"
import path from "path"
import { built, closure, plugin, readManifest, root, writePackage } from "./package-closure.mjs"

const out = path.join(root, ".medusa", "storefront")
const kit = readManifest("storefront")
const { manifest, problems } = kit

// Every file reachable from the entries, by require() in the JS and import in the declarations.
const entries = ["src/storefront/index.js", "src/storefront/react/index.js"].map((f) => [path.join(built, f), true])
const files = closure(entries, kit, problems)

if (problems.length) {
  console.error(`storefront package: ${problems.join("\n")}`)
  process.exit(1)
}

const { name } = writePackage(out, "storefront", manifest, files, ["lib", "guides", "README.md"])
// The storefront guides' patches (README.md's diff blocks, one file per starter), for
// `git apply node_modules/medusa-plugin-payin-storefront/guides/<starter>.patch`.
const guides = path.join(root, "src", "storefront", "guides")
mkdirSync(path.join(out, "guides"), { recursive: true })
for (const file of readdirSync(guides).filter((f) => f.endsWith(".patch"))) {
  copyFileSync(path.join(guides, file), path.join(out, "guides", file))
}
console.log(`storefront package: ${name}@${plugin.version} in ${path.relative(root, out)} (${files.size} files)`)
