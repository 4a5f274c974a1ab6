// Ports handed out by freePort (support/net.ts, support/postgres.mjs) are free when asked for and
// taken by a server some seconds later (PostgreSQL after initdb, Medusa after its boot). Two jest
// workers asking meanwhile could be given the same one by the OS; so each port handed out is
// written down for the whole machine, and one written down in the last 10 minutes is refused.
const { mkdirSync, statSync, utimesSync, writeFileSync } = require("fs")
const os = require("os")
const path = require("path")

const dir = path.join(os.tmpdir(), "payin-test-ports")
const HOLD_MS = 10 * 60_000

/** True when `port` is now this process's (not handed out by anyone in the last 10 minutes). */
function reservePort(port) {
  mkdirSync(dir, { recursive: true })
  const file = path.join(dir, String(port))
  try {
    writeFileSync(file, String(process.pid), { flag: "wx" })
    return true
  } catch (error) {
    if (error.code !== "EEXIST") throw error
  }
  const stat = statSync(file, { throwIfNoEntry: false })
  if (stat && Date.now() - stat.mtimeMs < HOLD_MS) return false
  const now = new Date()
  utimesSync(file, now, now)
  return true
}

module.exports = { reservePort }
