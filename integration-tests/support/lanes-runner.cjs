// The integration suite's jest runner when PAYIN_TEST_WORKERS is 2 or more (jest.config.js):
// jest-runner's own worker farm, with one rule of which file a free worker takes next. A "heavy"
// file (HEAVY below: several Medusa processes, a browser, an npm install and build) never runs
// beside another heavy one: on 2 cores two of them would each get half of what they were measured
// with, and their waits (restarts, lock expiry, builds) are what time out. So one worker goes
// through the heavy files, longest first, while the others take the light ones, longest first; a
// worker that finds only heavy files left while one runs waits for it. Run in band (one file,
// --runInBand), jest's own runner runs it. At the end it prints when each file ran.
const { default: TestRunner, EmittingTestRunner } = require("jest-runner")
const { Worker } = require("jest-worker")
const Emittery = require("emittery")
const path = require("path")

// seconds each took in a serial CI run (2 cores, 2026-11-29): the order within each lane
const HEAVY = {
  "integration-tests/http/production-topology.spec.ts": 157,
  "integration-tests/browser/next-storefront.spec.ts": 133,
  "integration-tests/browser/browser.spec.ts": 132,
  "integration-tests/package/medusa-oldest.spec.ts": 110,
  "integration-tests/http/multi-instance.spec.ts": 105,
  "integration-tests/http/health.spec.ts": 89,
  "integration-tests/http/health-alerts.spec.ts": 89,
  "integration-tests/http/faults-redis.spec.ts": 68,
  "integration-tests/demo/demo.spec.ts": 64,
  "integration-tests/http/faults-postgres.spec.ts": 59,
}
const LIGHT = {
  "integration-tests/http/shopper-data.spec.ts": 72,
  "integration-tests/http/money-path.spec.ts": 67,
  "integration-tests/http/checkout.spec.ts": 57,
  "integration-tests/http/effect-retries.spec.ts": 54,
  "integration-tests/http/reliability.spec.ts": 51,
  "integration-tests/http/pay-again.spec.ts": 50,
  "integration-tests/http/store-api.spec.ts": 48,
  "integration-tests/http/insights.spec.ts": 46,
  "integration-tests/http/notifications.spec.ts": 45,
  "integration-tests/http/ledger-scale.spec.ts": 45,
  "integration-tests/http/health-alert-crash.spec.ts": 45,
}

function plan(tests, rootDir) {
  const entries = tests.map((test) => {
    const rel = path.relative(rootDir, test.path).split(path.sep).join("/")
    const heavy = rel in HEAVY
    // unknown files: jest's own record of the last run, else a guess
    const seconds = HEAVY[rel] ?? LIGHT[rel] ?? (test.duration ? test.duration / 1000 : 10)
    return { test, rel, heavy, seconds }
  })
  return entries.sort((a, b) => b.seconds - a.seconds)
}

class LanesRunner extends EmittingTestRunner {
  #events = new Emittery()
  #inBand

  constructor(globalConfig, context) {
    super(globalConfig, context)
    this.#inBand = new TestRunner(globalConfig, context)
  }

  on(eventName, listener) {
    const offInBand = this.#inBand.on(eventName, listener)
    const off = this.#events.on(eventName, listener)
    return () => {
      offInBand()
      off()
    }
  }

  async runTests(tests, watcher, options) {
    if (options.serial) return this.#inBand.runTests(tests, watcher, options)
    return this.#lanes(tests, watcher)
  }

  async #lanes(tests, watcher) {
    const resolvers = new Map()
    for (const test of tests) {
      if (!resolvers.has(test.context.config.id)) {
        resolvers.set(test.context.config.id, {
          config: test.context.config,
          serializableModuleMap: test.context.moduleMap.toJSON(),
        })
      }
    }
    // as jest-runner starts its farm (its index.js, #createParallelTestRun)
    const worker = new Worker(path.join(path.dirname(require.resolve("jest-runner")), "testWorker.js"), {
      enableWorkerThreads: this._globalConfig.workerThreads,
      exposedMethods: ["worker"],
      forkOptions: { serialization: "json", stdio: "pipe" },
      idleMemoryLimit: typeof this._globalConfig.workerIdleMemoryLimit === "number" ? this._globalConfig.workerIdleMemoryLimit : undefined,
      maxRetries: 3,
      numWorkers: Math.min(this._globalConfig.maxWorkers, tests.length),
      setupArgs: [{ serializableResolvers: Array.from(resolvers.values()) }],
    })
    if (worker.getStdout()) worker.getStdout().pipe(process.stdout)
    if (worker.getStderr()) worker.getStderr().pipe(process.stderr)

    const rootDir = tests[0].context.config.rootDir
    const queue = plan(tests, rootDir)
    const began = Date.now()
    const timeline = []
    let heavyRunning = false
    const waiting = []
    let waited = 0

    const runOne = async (entry) => {
      const { test } = entry
      await this.#events.emit("test-file-start", [test])
      const promise = worker.worker({
        config: test.context.config,
        context: {
          ...this._context,
          changedFiles: this._context.changedFiles && Array.from(this._context.changedFiles),
          sourcesRelatedToTestsInChangedFiles:
            this._context.sourcesRelatedToTestsInChangedFiles && Array.from(this._context.sourcesRelatedToTestsInChangedFiles),
        },
        globalConfig: this._globalConfig,
        path: test.path,
      })
      if (promise.UNSTABLE_onCustomMessage) {
        promise.UNSTABLE_onCustomMessage(([event, payload]) => this.#events.emit(event, payload))
      }
      try {
        const result = await promise
        await this.#events.emit("test-file-success", [test, result])
      } catch (error) {
        await this.#events.emit("test-file-failure", [test, error])
      }
    }

    const lane = async () => {
      for (;;) {
        if (watcher.isInterrupted() || queue.length === 0) return
        let index = heavyRunning ? -1 : queue.findIndex((e) => e.heavy)
        if (index < 0) index = queue.findIndex((e) => !e.heavy)
        if (index < 0) {
          // only heavy files left, one of them running
          const from = Date.now()
          await new Promise((resolve) => waiting.push(resolve))
          waited += Date.now() - from
          continue
        }
        const [entry] = queue.splice(index, 1)
        if (entry.heavy) heavyRunning = true
        const start = Date.now()
        try {
          await runOne(entry)
        } finally {
          timeline.push({ rel: entry.rel, heavy: entry.heavy, start: start - began, end: Date.now() - began })
          if (entry.heavy) {
            heavyRunning = false
            waiting.splice(0).forEach((resolve) => resolve())
          }
        }
      }
    }

    try {
      await Promise.all(Array.from({ length: Math.max(1, Math.min(this._globalConfig.maxWorkers, tests.length)) }, lane))
    } finally {
      const { forceExited } = await worker.end()
      if (forceExited) console.error("[lanes] a worker did not exit gracefully and was force exited")
      const s = (ms) => (ms / 1000).toFixed(0).padStart(5)
      const lines = timeline
        .sort((a, b) => a.start - b.start)
        .map((t) => `[lanes] ${s(t.start)} s → ${s(t.end)} s ${t.heavy ? "heavy" : "     "} ${t.rel}`)
      console.error(
        `\n${lines.join("\n")}\n[lanes] ${timeline.length} files on ${this._globalConfig.maxWorkers} workers in ${s(Date.now() - began).trim()} s; ` +
          `a worker waited ${s(waited).trim()} s for a heavy file to end`
      )
    }
  }
}

module.exports = LanesRunner
