#!/usr/bin/env node
// Benchmark of the sandbox: pay-in creations per second and latency percentiles over keep-alive
// connections, with a trivial GET route of the same server as the baseline.
//
// Usage: node integration-tests/bench/sandbox.mjs [--duration SECONDS] [--connections N]
//
// It runs the sandbox package that `npm run build` makes (.medusa/sandbox, the files a developer
// installs as medusa-plugin-payin-sandbox), so it benchmarks what ships and never keeps a list of
// source files of its own. When that package is missing it runs `npm run build` first; when a
// source file under src/ changed after it was built, it says so in the result (`npm run bench`
// always builds first). BENCH_SMOKE=1 (`npm run bench:smoke`): 1 s phases, 4 connections, figures
// meaningless (only that it starts, answers 2xx and stops is checked).
// The sandbox runs in a child process (its own event loop, like in real use); autocannon drives it
// from this process. Every request goes to 127.0.0.1 and each phase is bounded in time and count.
import { fork, spawnSync } from "node:child_process"
import { existsSync, readdirSync, statSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import autocannon from "autocannon"
import { recordBench } from "./report-file.mjs"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const smoke = process.env.BENCH_SMOKE === "1"
const { values } = parseArgs({
  options: {
    duration: { type: "string", default: smoke ? "1" : "10" },
    connections: { type: "string", default: smoke ? "4" : "50" },
    child: { type: "string" },
  },
})

// ------------------------------------------------------------------------------------------------
// Child mode: run the sandbox and report its URL.
// ------------------------------------------------------------------------------------------------
if (values.child) {
  const { createRequire } = await import("node:module")
  const require = createRequire(import.meta.url)
  const { startSandbox } = require(values.child)
  const sandbox = await startSandbox({ host: "127.0.0.1", port: 0, apiKey: "bench-key", requisitesPerMethod: 10 })
  process.send({ url: sandbox.url })
  process.on("message", async (message) => {
    if (message === "stop") {
      await sandbox.close()
      process.exit(0)
    }
  })
} else {
  await main()
}

/** The sandbox package's library entry, built by `npm run build` when it is missing. */
function sandboxEntry() {
  const entry = path.join(root, ".medusa/sandbox/lib/sandbox/index.js")
  if (!existsSync(entry)) {
    console.log("the sandbox package (.medusa/sandbox) is not built: npm run build ...")
    const result = spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" })
    if (result.status !== 0 || !existsSync(entry)) throw new Error("npm run build failed: no .medusa/sandbox/lib/sandbox/index.js")
  }
  return entry
}

/** How many files under src/ (tests aside) changed after the sandbox package was built. */
function staleSources(entry) {
  const built = statSync(entry).mtimeMs
  let newer = 0
  const walk = (dir) => {
    for (const item of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, item.name)
      if (item.isDirectory()) {
        if (item.name !== "__tests__") walk(full)
      } else if (/\.tsx?$/.test(item.name) && statSync(full).mtimeMs > built) {
        newer++
      }
    }
  }
  walk(path.join(root, "src"))
  return newer
}

function run(opts) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)))
    autocannon.track(instance, { renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false })
  })
}

async function main() {
  const duration = Math.min(Math.max(Number(values.duration) || 10, 1), 60)
  const connections = Math.min(Math.max(Number(values.connections) || 50, 1), 256)
  const entry = sandboxEntry()
  const stale = staleSources(entry)
  const staleNote = stale ? `; NOTE: ${stale} file(s) under src/ changed after .medusa/sandbox was built (npm run build)` : ""
  const child = fork(fileURLToPath(import.meta.url), ["--child", entry], { stdio: ["ignore", "inherit", "inherit", "ipc"] })
  const { url } = await new Promise((resolve, reject) => {
    child.once("message", resolve)
    child.once("exit", (code) => reject(new Error(`sandbox exited with ${code}`)))
  })
  if (!new URL(url).hostname.startsWith("127.")) throw new Error(`refusing to benchmark a non-local URL ${url}`)

  // A static body with autocannon's cheap per-request id replacement ([<id>] -> unique id), so the
  // load generator (which shares the 2 cores) spends as little CPU as possible per request.
  const payIn = {
    url: `${url}/payment/trading/pay-in`,
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "bench-key" },
    idReplacement: true,
    body: JSON.stringify({
      fiatAmountRange: { min: 100, max: 50000 },
      fiatCurrency: "RUB",
      extra: {
        externalTransactionId: `bench-${process.pid}-[<id>]`,
        payerInfo: { ip: "203.0.113.7", userId: "user-[<id>]", userAgent: "bench", fingerprint: "abcdef0123" },
      },
      paymentPageConfig: { locale: "EN" },
    }),
  }
  const common = { connections, pipelining: 1, timeout: 10 }
  try {
    console.log(`sandbox ${path.relative(root, entry)} at ${url}; ${connections} keep-alive connections, ${duration}s per phase${staleNote}`)
    await run({ ...common, ...payIn, duration: Math.min(2, duration), maxOverallRequests: 20_000 }) // warm-up (JIT, pools)
    const baseline = await run({ ...common, url: `${url}/_sandbox/health`, duration, maxOverallRequests: duration * 100_000 })
    const creations = await run({ ...common, ...payIn, duration, maxOverallRequests: duration * 50_000 })
    const ms = (v) => `${v} ms`
    const report = {
      "pay-in creations/s (mean)": Math.round(creations.requests.average),
      "pay-in latency p50": ms(creations.latency.p50),
      "pay-in latency p90": ms(creations.latency.p90),
      "pay-in latency p99": ms(creations.latency.p99),
      "pay-in requests": creations.requests.total,
      "pay-in non-2xx": creations.non2xx,
      "pay-in errors/timeouts": creations.errors + creations.timeouts,
      "baseline GET /_sandbox/health req/s (mean)": Math.round(baseline.requests.average),
      "baseline latency p50 / p99": `${baseline.latency.p50} / ${baseline.latency.p99} ms`,
      "creations / baseline": (creations.requests.average / baseline.requests.average).toFixed(2),
    }
    console.table(report)
    recordBench([
      `sandbox: ${Math.round(creations.requests.average)} pay-in creations/s (target >= 3000), p50 ${creations.latency.p50} ms, ` +
        `p99 ${creations.latency.p99} ms; ratio to GET /_sandbox/health ${report["creations / baseline"]}${staleNote}`,
    ])
    const target = 3000
    if (!smoke) {
      console.log(
        creations.requests.average >= target
          ? `OK: ${Math.round(creations.requests.average)} creations/s >= ${target}`
          : `BELOW TARGET: ${Math.round(creations.requests.average)} creations/s < ${target}`
      )
    }
    if (creations.non2xx > 0 || creations.errors > 0) process.exitCode = 1
  } finally {
    child.send("stop")
    await new Promise((resolve) => child.once("exit", resolve))
  }
}
