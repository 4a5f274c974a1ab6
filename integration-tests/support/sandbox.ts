// The sandbox payment service for integration specs, over real HTTP.
import { request } from "undici"
import { closePayinPools } from "../../src/client/client"
import { MerchantPatch, RunningSandbox, startSandbox } from "../../src/sandbox"

export async function startTestSandbox(apiKey: string): Promise<RunningSandbox> {
  return startSandbox({
    port: 0,
    host: "127.0.0.1",
    apiKey,
    webhookRetryDelaysMs: [100, 300, 1000],
    sweepIntervalMs: 100,
    seed: 42,
  })
}

/** Control API call (the shopper's side: pay, expire, …). */
export async function control(sandbox: RunningSandbox, method: "GET" | "POST" | "PUT" | "DELETE", path: string, body?: unknown) {
  const res = await request(`${sandbox.url}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.body.text()
  return { status: res.statusCode, body: text ? JSON.parse(text) : null }
}

/** Every pay-in the sandbox holds for one Medusa payment session. */
export function payinsOfSession(sandbox: RunningSandbox, sessionId: string) {
  return sandbox.transactions().filter((t) => t.extra?.externalTransactionId === sessionId)
}

/**
 * Starts a sandbox before the spec's Medusa app boots (the app's config reads PAYIN_API_KEY and
 * PAYIN_BASE_URL then) and stops it after; `use` receives it.
 */
export function sandboxForApp(apiKey: string, merchant: MerchantPatch | undefined, use: (sandbox: RunningSandbox) => void): void {
  let sandbox: RunningSandbox | undefined
  beforeAll(async () => {
    sandbox = await startTestSandbox(apiKey)
    if (merchant) {
      sandbox.updateMerchant(merchant)
    }
    process.env.PAYIN_API_KEY = apiKey
    process.env.PAYIN_BASE_URL = sandbox.url
    delete process.env.PAYIN_SECOND_API_KEY
    use(sandbox)
  })
  afterAll(async () => {
    await sandbox?.close()
    await closePayinPools()
  })
}

/**
 * Two sandboxes (the app's "default" and "second" provider instances, two merchant accounts),
 * started before the spec's Medusa app boots and stopped after; `use` receives them.
 */
export function twoSandboxesForApp(keys: { default: string; second: string }, use: (sandboxes: { default: RunningSandbox; second: RunningSandbox }) => void): void {
  let started: { default: RunningSandbox; second: RunningSandbox } | undefined
  beforeAll(async () => {
    started = { default: await startTestSandbox(keys.default), second: await startTestSandbox(keys.second) }
    process.env.PAYIN_API_KEY = keys.default
    process.env.PAYIN_BASE_URL = started.default.url
    process.env.PAYIN_SECOND_API_KEY = keys.second
    process.env.PAYIN_SECOND_BASE_URL = started.second.url
    process.env.PAYIN_TIMEOUT_MS = "1500"
    use(started)
  })
  afterAll(async () => {
    await started?.default.close()
    await started?.second.close()
    await closePayinPools()
  })
}
