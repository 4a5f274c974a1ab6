// A private embedded PostgreSQL that a fault test stops and starts again, on the same data folder
// and port (persistent: stop keeps the data). Run as a child process of the test (postgres.mjs is
// ESM, the specs are compiled to CommonJS). It makes a scratch folder the OS user "postgres" can
// enter and says {"event":"ready","folder":…}, then follows JSON lines on stdin:
//   {"cmd":"start"}               -> {"event":"started","db":{…},"pid":…,"created":…}
//   {"cmd":"stop","graceMs":5000} -> {"event":"stopped","ms":…}  (graceMs 0: immediate shutdown, like a crash)
// Failures answer {"event":"error","message":…}. When stdin closes (the test ended or died) the
// server is stopped and the folder removed.
// argv: <port>   (the cluster lives in <folder>/data, its password in <folder>/data.password)
import { rm } from "node:fs/promises"
import path from "node:path"
import readline from "node:readline"
import { makeScratchDir, startEmbeddedPostgres } from "./postgres.mjs"

const port = Number(process.argv[2])
let server = null
const say = (message) => process.stdout.write(JSON.stringify(message) + "\n")
const folder = await makeScratchDir("payin-faults-pg-")
say({ event: "ready", folder })

const lines = readline.createInterface({ input: process.stdin })
let queue = Promise.resolve()
lines.on("line", (line) => {
  queue = queue.then(async () => {
    let command
    try {
      command = JSON.parse(line)
      if (command.cmd === "start") {
        if (server) throw new Error("already running")
        server = await startEmbeddedPostgres({ dataDir: path.join(folder, "data"), persistent: true, port })
        say({ event: "started", db: server.db, pid: server.pid, created: server.created })
      } else if (command.cmd === "stop") {
        if (!server) throw new Error("not running")
        const started = Date.now()
        await server.stop({ graceMs: command.graceMs ?? 5000 })
        server = null
        say({ event: "stopped", ms: Date.now() - started })
      } else {
        throw new Error(`unknown command ${line}`)
      }
    } catch (error) {
      say({ event: "error", message: String(error?.message ?? error) })
    }
  })
})
lines.on("close", () => {
  queue = queue.then(async () => {
    await server?.stop().catch(() => {})
    await rm(folder, { recursive: true, force: true })
    process.exit(0)
  })
})
