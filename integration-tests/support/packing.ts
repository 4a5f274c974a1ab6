// Packing and installing the built packages (.medusa/sandbox, .medusa/storefront, the plugin) the
// way a user's npm does, into a scratch folder of the spec's, for the package specs.
import { execFileSync } from "child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "fs"
import os from "os"
import path from "path"

/** The plugin's repository root (its own package). */
export const root = path.resolve(__dirname, "..", "..")

/** A package `npm run build` makes under .medusa/; throws, saying what to run, when it is not built. */
export function builtPackage(folder: string, name: string): string {
  const dir = path.join(root, ".medusa", folder)
  if (!existsSync(path.join(dir, "package.json"))) {
    throw new Error(`the ${name} package is not built: run \`npm run build\` (npm test does) before this spec`)
  }
  return dir
}

/** `npm pack` of a package folder (default: the plugin) into `dest`; the tarball's path. */
export function npmPack(dest: string, packageDir = root): string {
  const name = execFileSync("npm", ["pack", "--silent", "--pack-destination", dest, packageDir], { cwd: root, encoding: "utf8" }).trim().split("\n").pop()!
  return path.join(dest, name)
}

/** A tarball unpacked as `node_modules/<name>` of `project` (the package alone, no dependencies); its folder. */
export function unpackInto(project: string, name: string, tarball: string): string {
  const dir = path.join(project, "node_modules", name)
  mkdirSync(dir, { recursive: true })
  execFileSync("tar", ["-xzf", tarball, "-C", dir, "--strip-components=1"])
  return dir
}

export interface Installed {
  dir: string
  /** The packages in its node_modules (scoped ones as @scope/name), sorted. */
  packages: string[]
  /** The bytes of its node_modules. */
  bytes: number
}

/** The bytes of every file under `dir`. */
export function du(dir: string): number {
  let total = 0
  for (const entry of readdirSync(dir, { recursive: true }) as string[]) {
    const stat = statSync(path.join(dir, entry), { throwIfNoEntry: false })
    if (stat?.isFile()) total += stat.size
  }
  return total
}

export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`

/** A scratch folder (removed after the spec) to pack packages into and install them in. */
export function packingWorkspace(prefix: string) {
  const work = mkdtempSync(path.join(os.tmpdir(), prefix))
  afterAll(() => rmSync(work, { recursive: true, force: true }))

  const npm = (args: string[], cwd: string) =>
    execFileSync("npm", args, { cwd, encoding: "utf8", env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false" } })

  /** `npm pack` of a package folder; the tarball's path. */
  const pack = (dir: string): string => npmPack(work, dir)

  /** Installs a tarball into an empty project `folder` of the workspace. */
  const installInto = (folder: string, tarball: string): Installed => {
    const dir = path.join(work, folder)
    mkdirSync(dir, { recursive: true })
    writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: folder, private: true }))
    npm(["install", "--no-package-lock", tarball], dir)
    const modules = path.join(dir, "node_modules")
    const packages = readdirSync(modules)
      .filter((e) => !e.startsWith("."))
      .flatMap((e) => (e.startsWith("@") ? readdirSync(path.join(modules, e)).map((s) => `${e}/${s}`) : [e]))
      .sort()
    return { dir, packages, bytes: du(modules) }
  }

  return { work, npm, pack, installInto }
}
