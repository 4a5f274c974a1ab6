// Stops the embedded PostgreSQL of a run whose process died without cleaning up (SIGKILL).
// argv: <parent pid> <data dir>
import { existsSync, readFileSync } from "node:fs"
import path from "node:path"

const [parentPid, dataDir] = process.argv.slice(2).map((v, i) => (i === 0 ? Number(v) : v))

function alive(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

function postmasterPid() {
  const file = path.join(dataDir, "postmaster.pid")
  if (!existsSync(file)) {
    return null
  }
  const pid = Number(readFileSync(file, "utf8").split("\n")[0])
  return Number.isFinite(pid) && pid > 0 ? pid : null
}

const timer = setInterval(() => {
  if (alive(parentPid)) {
    return
  }
  const pid = postmasterPid()
  if (pid && alive(pid)) {
    try {
      process.kill(pid, "SIGINT") // fast shutdown
    } catch {}
  }
  clearInterval(timer)
  process.exit(0)
}, 1000)
process.on("SIGTERM", () => process.exit(0))
