// A PostgreSQL of one spec's own, which it may stop and start again (same data, same port)
// without touching the database the rest of the suite shares: postgres-control.mjs in a child process.
import { ChildProcess, spawn } from "child_process"
import path from "path"
import readline from "readline"
import { freePort } from "./net"

type Db = { DB_HOST: string; DB_PORT: string; DB_USERNAME: string; DB_PASSWORD: string }
type Event = { event: string; [key: string]: any }

export type PrivatePostgres = {
  db: Db
  /** postgres://… of database `name` on this server. */
  url(name: string): string
  /** Stops the server, keeping its data; `graceMs` 0 is an immediate shutdown (crash recovery on the next start). Resolves with how long it took. */
  stop(graceMs?: number): Promise<number>
  /** Starts it again on the same data and port. */
  start(): Promise<void>
  /** Stops it for good and removes its folder. */
  close(): Promise<void>
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const port = await freePort()
  const child: ChildProcess = spawn(process.execPath, [path.join(__dirname, "postgres-control.mjs"), String(port)], {
    stdio: ["pipe", "pipe", "pipe"],
  })
  let stderr = ""
  child.stderr!.on("data", (d) => (stderr = (stderr + d).slice(-4000)))
  const events: Event[] = []
  const waiters: ((e: Event) => void)[] = []
  readline.createInterface({ input: child.stdout! }).on("line", (line) => {
    let event: Event
    try {
      event = JSON.parse(line)
    } catch {
      return // a log line
    }
    const waiter = waiters.shift()
    if (waiter) waiter(event)
    else events.push(event)
  })
  const exited = new Promise<Event>((resolve) =>
    child.once("exit", (code) => resolve({ event: "error", message: `postgres-control exited (${code}): ${stderr}` }))
  )
  const next = (): Promise<Event> =>
    Promise.race([events.length ? Promise.resolve(events.shift()!) : new Promise<Event>((r) => waiters.push(r)), exited])
  const awaitEvent = async (name: string): Promise<Event> => {
    const event = await next()
    if (event.event !== name) throw new Error(`private PostgreSQL: expected ${name}, got ${JSON.stringify(event)}`)
    return event
  }
  const send = (command: Record<string, unknown>) => child.stdin!.write(JSON.stringify(command) + "\n")

  await awaitEvent("ready")
  send({ cmd: "start" })
  const { db } = (await awaitEvent("started")) as unknown as { db: Db }
  return {
    db,
    url: (name) => `postgres://${encodeURIComponent(db.DB_USERNAME)}:${encodeURIComponent(db.DB_PASSWORD)}@${db.DB_HOST}:${db.DB_PORT}/${name}`,
    async stop(graceMs = 5000) {
      send({ cmd: "stop", graceMs })
      return (await awaitEvent("stopped")).ms as number
    },
    async start() {
      send({ cmd: "start" })
      await awaitEvent("started")
    },
    async close() {
      if (child.exitCode !== null) return
      child.stdin!.end()
      await exited
    },
  }
}
