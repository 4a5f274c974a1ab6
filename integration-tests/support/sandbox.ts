// The sandbox payment service for integration specs, over real HTTP.
import { request } from "undici"
import { RunningSandbox, startSandbox } from "../../src/sandbox"

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
