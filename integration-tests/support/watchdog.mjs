// Cleans up after a parent process that died without doing it itself (SIGKILL, a crashed test
// runner): stops the embedded PostgreSQL of a data dir and kills process groups.
// argv: <parent pid> <target>...   target: pgdata=<dir> | group=<pgid>
import { existsSync, readFileSync } from "node:fs"
import path from "node:path"

const [parentArg, ...targets] = process.argv.slice(2)
const parentPid = Number(parentArg)

function alive(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

function postmasterPid(dataDir) {
  const file = path.join(dataDir, "postmaster.pid")
  if (!existsSync(file)) {
    return null
  }
  const pid = Number(readFileSync(file, "utf8").split("\n")[0])
  return Number.isFinite(pid) && pid > 0 ? pid : null
}

function cleanUp() {
  for (const target of targets) {
    const [kind, value] = target.split("=")
    try {
      if (kind === "group") {
        process.kill(-Number(value), "SIGTERM")
      } else if (kind === "pgdata") {
        const pid = postmasterPid(value)
        if (pid && alive(pid)) {
          process.kill(pid, "SIGINT") // fast shutdown
        }
      }
    } catch {}
  }
}

const timer = setInterval(() => {
  if (!alive(parentPid)) {
    clearInterval(timer)
    cleanUp()
    process.exit(0)
  }
}, 1000)
process.on("SIGTERM", () => process.exit(0))
