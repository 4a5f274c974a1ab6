// Debian packages the tests need (Chromium, redis-server): found where Debian puts them, else
// installed with apt when the tests run as root, else a clear message saying what to do.
import { execFileSync } from "child_process"
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "fs"
import os from "os"
import path from "path"

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
  // two jest workers (or two runs) may both find it missing: one apt at a time, then look again
  return withMachineLock("payin-apt.lock", () => {
    const again = findBinary(tool)
    if (again) return again
    const started = Date.now()
    log(`${tool.tag} installing Debian's ${tool.pkg} package…`)
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
    // apt-get waits for an apt run of anyone else's instead of failing at once
    const wait = ["-o", "DPkg::Lock::Timeout=600"]
    execFileSync("apt-get", [...wait, "update", "-qq"], { stdio: "ignore", env })
    try {
      execFileSync("apt-get", [...wait, "install", "-y", "-qq", "--no-install-recommends", tool.pkg], { stdio: "ignore", env })
    } catch (error) {
      // containers without an init: a package's own service start may fail; the binary is what we need
      if (!findBinary(tool)) throw error
    }
    const installed = findBinary(tool)
    if (!installed) throw new Error(`apt-get installed ${tool.pkg} but no binary was found at ${tool.candidates.join(", ")}`)
    log(`${tool.tag} ${tool.pkg} installed in ${((Date.now() - started) / 1000).toFixed(1)} s`)
    return installed
  })
}

/**
 * Runs `fn` holding a lock of the whole machine (a folder in the temporary directory, made
 * atomically; one left by a process that died is taken over), waiting up to `timeoutMs` for it.
 */
export function withMachineLock<T>(name: string, fn: () => T, timeoutMs = 15 * 60_000): T {
  const dir = path.join(os.tmpdir(), name)
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      mkdirSync(dir)
      writeFileSync(path.join(dir, "pid"), String(process.pid))
      break
    } catch (error: any) {
      if (error.code !== "EEXIST") throw error
    }
    if (!ownerAlive(dir)) {
      rmSync(dir, { recursive: true, force: true })
      continue
    }
    if (Date.now() > deadline) throw new Error(`${dir} still held after ${timeoutMs} ms (remove it if no test run is installing)`)
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500) // a synchronous sleep
  }
  try {
    return fn()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function ownerAlive(dir: string): boolean {
  let pid: number
  try {
    pid = Number(readFileSync(path.join(dir, "pid"), "utf8"))
  } catch {
    // just made, its pid not yet written; or its owner died in between
    return Date.now() - (statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? 0) < 10_000
  }
  try {
    process.kill(pid, 0)
    return true
  } catch (error: any) {
    return error.code === "EPERM"
  }
}
