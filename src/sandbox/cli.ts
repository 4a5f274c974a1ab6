#!/usr/bin/env node
import { parseArgs } from "util"
import { startSandbox, type SandboxOptions } from "./index"
import { envValue, storeEnvLines, storeWebhookUrl } from "./store-env"

const USAGE = `Usage: payin-sandbox --api-key KEY [options]

  --port PORT               TCP port (default 4010; 0 picks a free port)
  --host HOST               interface to bind (default 127.0.0.1; "::" for dual-stack)
  --api-key KEY             the merchant's API key (or env PAYIN_SANDBOX_API_KEY)
  --webhook-url URL         where status-change webhooks are POSTed
  --store-url URL           a Medusa store in development (e.g. http://localhost:9000):
                            webhooks go to URL/hooks/payin/default (unless --webhook-url
                            is given) and the store's PAYIN_API_KEY / PAYIN_BASE_URL
                            lines are printed after the listening line
  --payment-window SECONDS  payment window (default 900)
  --whitelist ENTRY,ENTRY   IPv4 / IPv6 / CIDR entries allowed to call the service API
  --data FILE               keep the state in FILE across restarts
  --public-url URL          base URL of the hosted page links (default http://HOST:PORT)
  --no-payment-page-url     omit externalPaymentPageUrl from transactions
  -h, --help                this text
`

function fail(message: string): never {
  process.stderr.write(`payin-sandbox: ${message}\n\n${USAGE}`)
  process.exit(2)
}

function integer(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value) || Number(value) < min) fail(`--${name} must be an integer >= ${min}`)
  return Number(value)
}

async function main(): Promise<void> {
  let values: Record<string, string | boolean | undefined>
  try {
    values = parseArgs({
      options: {
        port: { type: "string" },
        host: { type: "string" },
        "api-key": { type: "string" },
        "webhook-url": { type: "string" },
        "store-url": { type: "string" },
        "payment-window": { type: "string" },
        whitelist: { type: "string" },
        data: { type: "string" },
        "public-url": { type: "string" },
        "no-payment-page-url": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }).values
  } catch (err) {
    fail((err as Error).message)
  }
  if (values.help) {
    process.stdout.write(USAGE)
    return
  }
  const apiKey = (values["api-key"] as string | undefined) ?? process.env.PAYIN_SANDBOX_API_KEY
  if (!apiKey) fail("--api-key is required")
  const storeUrl = values["store-url"] as string | undefined
  let webhookUrl = values["webhook-url"] as string | undefined
  if (storeUrl !== undefined) {
    try {
      const storeWebhook = storeWebhookUrl(storeUrl)
      envValue(apiKey)
      webhookUrl ??= storeWebhook
    } catch (err) {
      fail((err as Error).message)
    }
  }
  const options: SandboxOptions = {
    port: integer("port", values.port as string | undefined, 0) ?? 4010,
    host: (values.host as string | undefined) ?? "127.0.0.1",
    apiKey,
    webhookUrl,
    paymentWindowSeconds: integer("payment-window", values["payment-window"] as string | undefined, 1),
    whitelist:
      values.whitelist === undefined
        ? undefined
        : String(values.whitelist)
            .split(",")
            .map((e) => e.trim())
            .filter((e) => e !== ""),
    dataFile: values.data as string | undefined,
    publicUrl: values["public-url"] as string | undefined,
    externalPaymentPageUrl: values["no-payment-page-url"] ? false : undefined,
  }
  if (options.port! > 65535) fail("--port must be <= 65535")

  let sandbox: Awaited<ReturnType<typeof startSandbox>>
  try {
    sandbox = await startSandbox(options)
  } catch (err) {
    process.stderr.write(`payin-sandbox: ${(err as Error).message}\n`)
    process.exit(1)
  }
  const lines = [`payin-sandbox listening on ${sandbox.url}`]
  if (storeUrl !== undefined) lines.push(...storeEnvLines({ apiKey, baseUrl: sandbox.url, webhookUrl: webhookUrl! }))
  process.stdout.write(`${lines.join("\n")}\n`)

  let stopping = false
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return
    stopping = true
    sandbox
      .close()
      .then(() => process.exit(0))
      .catch((err) => {
        process.stderr.write(`payin-sandbox: error while stopping on ${signal}: ${(err as Error).message}\n`)
        process.exit(1)
      })
  }
  process.on("SIGINT", stop)
  process.on("SIGTERM", stop)
}

void main()
