#!/usr/bin/env node
// npm run soak -- [--minutes M] [--shoppers S] [--seed N] [--plant NAME]: checks the flags, runs the soak's one
// jest file with them (SOAK_* variables) and says where the report is.
import { spawn } from "node:child_process"
import path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")
const out = path.join(root, ".soak")
// the plants of soak/plants.ts (kept in step with PLANTS there; options.ts refuses any other)
const PLANTS = ["double_capture"]
const USAGE = `usage: npm run soak -- [--minutes M] [--shoppers S] [--seed N] [--plant NAME] [--database-url URL]
  --minutes   how long the load runs (default 3; a number > 0, at most 1440)
  --shoppers  shoppers at once (default 14, what this 2-core machine carries; a whole number 1-64)
  --seed      the seed every choice comes from (default 1; a whole number 0-4294967295)
  --plant     a known bug the test app plants (${PLANTS.join(", ")}): the run passes only when the
              auditor reports exactly that bug and nothing else
  --database-url  postgres://user:password@host:port/db of a PostgreSQL server of yours (staging): the
              soak creates a database of its own there (payin_soak_<time>, dropped at the end; the user
              needs CREATEDB) instead of starting one, and restarts no PostgreSQL
The report is written to ${path.relative(process.cwd(), out) || "."}/report.md and report.json.`

const FLAGS = {
  minutes: { env: "SOAK_MINUTES", ok: (n) => Number.isFinite(n) && n > 0 && n <= 1440, rule: "a number > 0, at most 1440" },
  shoppers: { env: "SOAK_SHOPPERS", ok: (n) => Number.isInteger(n) && n >= 1 && n <= 64, rule: "a whole number from 1 to 64" },
  seed: { env: "SOAK_SEED", ok: (n) => Number.isInteger(n) && n >= 0 && n <= 2 ** 32 - 1, rule: "a whole number from 0 to 4294967295" },
  plant: { env: "SOAK_PLANT", name: true, ok: (v) => PLANTS.includes(v), rule: `one of ${PLANTS.join(", ")}` },
  "database-url": { env: "SOAK_DATABASE_URL", name: true, secret: true, ok: (v) => /^postgres(ql)?:\/\/\S+$/.test(v), rule: "a postgres:// URL" },
}

function fail(message) {
  process.stderr.write(`soak: ${message}\n${USAGE}\n`)
  process.exit(2)
}

const env = { ...process.env }
const args = process.argv.slice(2)
for (let i = 0; i < args.length; i++) {
  const arg = args[i]
  if (arg === "--help" || arg === "-h") {
    process.stdout.write(USAGE + "\n")
    process.exit(0)
  }
  const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg)
  const flag = match && FLAGS[match[1]]
  if (!flag) fail(`unknown argument "${arg}"`)
  const value = match[2] ?? args[++i]
  if (value === undefined || value === "") fail(`--${match[1]} needs a value`)
  if (flag.name) {
    // a URL may carry a password: never echoed
    if (!flag.ok(value)) fail(`--${match[1]} ${flag.secret ? "(not shown)" : `"${value}"`}: must be ${flag.rule}`)
    env[flag.env] = value
    continue
  }
  const n = Number(value)
  if (!/^\s*[0-9.]+\s*$/.test(value) || !flag.ok(n)) fail(`--${match[1]} "${value}": must be ${flag.rule}`)
  env[flag.env] = String(n)
}
env.SOAK_OUT = out
env.TEST_TYPE = "soak"
env.NODE_OPTIONS = [env.NODE_OPTIONS, "--experimental-vm-modules", "--max-old-space-size=4096"].filter(Boolean).join(" ")

const jest = path.join(root, "node_modules", ".bin", "jest")
const child = spawn(
  jest,
  ["--config", path.join(root, "integration-tests", "jest.config.js"), "--runInBand", "--forceExit", path.join(root, "integration-tests", "soak", "soak.soak.ts")],
  { cwd: root, env, stdio: "inherit" }
)
const forward = (signal) => () => child.kill(signal)
process.on("SIGINT", forward("SIGINT"))
process.on("SIGTERM", forward("SIGTERM"))
child.on("exit", (code, signal) => {
  process.stdout.write(`\nsoak report: ${path.join(out, "report.md")} (and report.json, logs/)\n`)
  process.exit(code ?? (signal ? 1 : 0))
})
