// node together.mjs SCRIPT...: runs the package's npm scripts at once (npm test: the type-check,
// one process on one core, beside the unit tests), each one's output held and printed whole when it
// ends, and exits 1 when any failed. Each ends in "[together] SCRIPT: exit N, S s".
import { spawn } from "child_process"

const scripts = process.argv.slice(2)
if (!scripts.length) {
  console.error("usage: node integration-tests/build/together.mjs SCRIPT...")
  process.exit(2)
}
const npm = process.platform === "win32" ? "npm.cmd" : "npm"

const runs = scripts.map(
  (script) =>
    new Promise((resolve) => {
      const began = Date.now()
      const child = spawn(npm, ["run", "--silent", script], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? "0" } })
      const out = []
      child.stdout.on("data", (d) => out.push(d))
      child.stderr.on("data", (d) => out.push(d))
      child.on("error", (e) => out.push(Buffer.from(`${e.message}\n`)))
      child.on("close", (code, signal) => {
        process.stdout.write(Buffer.concat(out))
        const status = code ?? 1
        console.log(`[together] ${script}: exit ${signal ?? status}, ${((Date.now() - began) / 1000).toFixed(0)} s`)
        resolve(status)
      })
    })
)
const statuses = await Promise.all(runs)
process.exit(statuses.some((s) => s !== 0) ? 1 : 0)
