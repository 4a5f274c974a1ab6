// `npm run demo` as a child process for the specs (demo.spec.ts, browser/*.spec.ts): a temporary
// DEMO_DIR, free ports, the embedded PostgreSQL (never the test run's server), stopped as Ctrl-C
// would stop it.
import { ChildProcess, spawn } from "child_process"
import { chmodSync, mkdtempSync, readFileSync } from "fs"
import os from "os"
import path from "path"

const root = path.resolve(__dirname, "..", "..")

export type DemoSample = {
  orderId: string | null
  cartId: string
  payinId: string
  ledgerId: string
  status: string
  flags: string[]
  /** Templates of the shopper notifications its order got, oldest first (README "Notifications"). */
  notifications: string[]
}

/** A shopper notification as the demo lists it (the Notification Module's row). */
export type DemoNotification = { id: string; template: string; to: string; orderId: string; createdAt: string }

/** What the demo writes to DEMO_DIR/demo.json. */
export type DemoInfo = {
  backendUrl: string
  adminUrl: string
  adminEmail: string
  adminPassword: string
  publishableKey: string
  regionId: string
  productVariantId: string
  providerId: string
  sandboxUrl: string
  sandboxApiKey: string
  storeApiUrl: string
  storefrontUrl: string
  webhookUrl: string
  /** The demo's PostgreSQL connection string (the embedded server unless DATABASE_URL / DB_HOST was given). */
  databaseUrl: string
  samples: Record<string, DemoSample>
  notifications: {
    channel: string
    provider: string
    orderStatusUrl: string
    total: number
    byTemplate: Record<string, number>
    items: DemoNotification[]
  }
}

export type RunningDemo = {
  child: ChildProcess
  /** Resolves with everything printed so far once the demo printed "Pay-in demo is up". */
  ready: Promise<string>
  exited: Promise<number | null>
  output: () => string
}

const started = new Map<ChildProcess, () => string>()

/** A temporary DEMO_DIR the OS user "postgres" (embedded PostgreSQL runs as it) can enter. */
export function makeDemoDir(prefix = "payin-demo-test-"): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix))
  chmodSync(dir, 0o755)
  return dir
}

export function startDemo({
  demoDir,
  port,
  sandboxPort = 0,
  storefrontPort = 0,
  extraEnv = {},
}: {
  demoDir: string
  port: number
  sandboxPort?: number
  /** 0: any free port (never the 8000 a developer's own demo may hold) */
  storefrontPort?: number
  /** More variables for the demo (STORE_CORS, DEMO_ALLOWED_ORIGINS, …). */
  extraEnv?: Record<string, string>
}): RunningDemo {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...extraEnv,
    DEMO_DIR: demoDir,
    DEMO_PORT: String(port),
    DEMO_SANDBOX_PORT: String(sandboxPort),
    DEMO_STOREFRONT_PORT: String(storefrontPort),
  }
  // the embedded default, not the test run's server; the demo's own encryption key
  for (const key of ["DATABASE_URL", "DB_HOST", "DB_PORT", "DB_USERNAME", "DB_PASSWORD", "DB_NAME", "PAYIN_ENCRYPTION_KEY"]) {
    delete env[key]
  }
  const child = spawn(process.execPath, [path.join(root, "integration-tests", "demo", "demo.mjs")], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  })
  let output = ""
  started.set(child, () => output)
  child.stdout!.on("data", (d) => (output += d))
  child.stderr!.on("data", (d) => (output += d))
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      started.delete(child)
      resolve(code)
    })
  )
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      if (output.includes("Pay-in demo is up")) {
        clearInterval(timer)
        resolve(output)
      }
    }, 200)
    exited.then((code) => {
      clearInterval(timer)
      reject(new Error(`demo exited with ${code} before it was up:\n${output.slice(-4000)}`))
    })
  })
  ready.catch(() => undefined) // observed by the caller; no unhandled rejection when it is not
  return { child, ready, exited, output: () => output }
}

/** How long a stopped demo may take before it is killed (it stops itself in about 15 s at most). */
const STOP_LIMIT_MS = 30_000

/**
 * Ctrl-C; resolves with the exit code. A demo still running STOP_LIMIT_MS later is killed with
 * SIGKILL (its watchdogs end what it started) and resolves with null, failing a `toBe(0)`.
 */
export async function stopDemo(demo: RunningDemo): Promise<number | null> {
  if (demo.child.exitCode === null && demo.child.signalCode === null) {
    demo.child.kill("SIGINT")
  }
  const timer = setTimeout(() => demo.child.kill("SIGKILL"), STOP_LIMIT_MS)
  try {
    return await demo.exited
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Stops every demo these helpers started and that still runs (afterAll), with `showOutput` printing
 * the end of its output first (for a demo left running by a failed assertion: what the server said).
 */
export async function stopAllDemos({ showOutput = false }: { showOutput?: boolean } = {}): Promise<void> {
  await Promise.all(
    [...started].map(async ([child, output]) => {
      if (showOutput) {
        console.log(`[demo still running, stopping it; its last output]\n${output().slice(-6000)}`)
      }
      if (child.exitCode !== null || child.signalCode !== null) {
        return
      }
      const exited = new Promise((r) => child.once("exit", r))
      child.kill("SIGINT")
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_LIMIT_MS)
      await exited
      clearTimeout(timer)
    })
  )
}

export function readDemo(demoDir: string): DemoInfo {
  return JSON.parse(readFileSync(path.join(demoDir, "demo.json"), "utf8"))
}
