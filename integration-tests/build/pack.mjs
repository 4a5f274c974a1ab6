// `npm run pack` (after `npm run build`): packs the three packages this repository publishes into
// one folder, .pack/ by default (gitignored; `--out DIR` for another), and prints their absolute
// paths on stdout, one per line, always in this order and nothing else:
//
//   /…/.pack/medusa-plugin-payin-<version>.tgz              the plugin (a store's backend)
//   /…/.pack/medusa-plugin-payin-storefront-<version>.tgz   the storefront kit (.medusa/storefront)
//   /…/.pack/medusa-plugin-payin-sandbox-<version>.tgz      the sandbox (.medusa/sandbox)
//
// so `npm run pack --silent | head -1` is the plugin's tarball (`npm run pack` sends the build's
// output to stderr; `--silent` drops npm's own "> script" lines). Sizes go to stderr. Tarballs an
// earlier run left in the folder are removed first. It packs what the build wrote: run
// `npm run build` first (`npm run pack` does).
import { execFileSync } from "child_process"
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "fs"
import path from "path"
import { fileURLToPath } from "url"

const root = fileURLToPath(new URL("../..", import.meta.url))

/** The package folders, in the order their tarballs are printed. */
export const PACKAGES = [
  { name: "medusa-plugin-payin", dir: root, built: path.join(root, ".medusa", "server", "medusa-plugin.config.js") },
  { name: "medusa-plugin-payin-storefront", dir: path.join(root, ".medusa", "storefront"), built: path.join(root, ".medusa", "storefront", "package.json") },
  { name: "medusa-plugin-payin-sandbox", dir: path.join(root, ".medusa", "sandbox"), built: path.join(root, ".medusa", "sandbox", "package.json") },
]

/** Packs every package into `out` and returns the tarballs' absolute paths, in PACKAGES order. */
export function packAll(out = path.join(root, ".pack")) {
  for (const { name, built } of PACKAGES) {
    if (!existsSync(built)) throw new Error(`${name} is not built (${path.relative(root, built)} is missing): run \`npm run build\` first`)
  }
  mkdirSync(out, { recursive: true })
  for (const entry of readdirSync(out)) {
    if (entry.endsWith(".tgz")) rmSync(path.join(out, entry))
  }
  return PACKAGES.map(({ name, dir }) => {
    const text = execFileSync("npm", ["pack", "--json", "--pack-destination", out, dir], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, npm_config_loglevel: "error", npm_config_update_notifier: "false" },
    })
    const [packed] = JSON.parse(text.slice(text.indexOf("[")))
    if (packed?.name !== name) throw new Error(`packed ${packed?.name} from ${dir}, expected ${name}`)
    return path.join(out, packed.filename)
  })
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2)
  const at = args.indexOf("--out")
  if ((at !== -1 && !args[at + 1]) || args.length !== (at === -1 ? 0 : 2)) {
    console.error("usage: node integration-tests/build/pack.mjs [--out DIR]")
    process.exit(2)
  }
  try {
    const tarballs = packAll(at === -1 ? undefined : path.resolve(args[at + 1]))
    for (const tarball of tarballs) {
      console.error(`packed ${path.basename(tarball)} (${(statSync(tarball).size / 1024).toFixed(1)} KiB)`)
    }
    process.stdout.write(`${tarballs.join("\n")}\n`)
  } catch (err) {
    console.error(`pack: ${err.message}`)
    process.exit(1)
  }
}
