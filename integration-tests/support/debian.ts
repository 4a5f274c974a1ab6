// Debian packages the tests need (Chromium, redis-server): found where Debian puts them, else
// installed with apt when the tests run as root, else a clear message saying what to do.
import { execFileSync } from "child_process"
import { existsSync } from "fs"

export type DebianTool = {
  /** Debian's package name. */
  pkg: string
  /** Where its binary may be; `envVar` names a variable that points at one elsewhere. */
  candidates: string[]
  envVar: string
  /** What to say when it cannot be installed here (not root). */
  otherwise: string
  /** A log prefix, e.g. "[redis]". */
  tag: string
}

export function findBinary(tool: DebianTool): string | null {
  const fromEnv = process.env[tool.envVar]
  if (fromEnv && existsSync(fromEnv)) return fromEnv
  return tool.candidates.find((p) => existsSync(p)) ?? null
}

/** The binary's path; installs the package with apt-get when it is missing and this runs as root. */
export function ensureDebianPackage(tool: DebianTool, log: (line: string) => void = console.log): string {
  const found = findBinary(tool)
  if (found) return found
  if (typeof process.getuid !== "function" || process.getuid() !== 0) {
    throw new Error(
      `No ${tool.pkg} found. Install it (Debian/Ubuntu: sudo apt-get install -y --no-install-recommends ${tool.pkg}), ` +
        `set ${tool.envVar} to the binary${tool.otherwise ? `, ${tool.otherwise}` : ""}.`
    )
  }
  const started = Date.now()
  log(`${tool.tag} installing Debian's ${tool.pkg} package…`)
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
  execFileSync("apt-get", ["update", "-qq"], { stdio: "ignore", env })
  try {
    execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", tool.pkg], { stdio: "ignore", env })
  } catch (error) {
    // containers without an init: a package's own service start may fail; the binary is what we need
    if (!findBinary(tool)) throw error
  }
  const installed = findBinary(tool)
  if (!installed) throw new Error(`apt-get installed ${tool.pkg} but no binary was found at ${tool.candidates.join(", ")}`)
  log(`${tool.tag} ${tool.pkg} installed in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  return installed
}
