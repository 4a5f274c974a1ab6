import { createServer, type Server } from "http"
import type { AddressInfo } from "net"
import { getRequestListener } from "@hono/node-server"
import type { Transaction } from "../client/schemas"
import { createApp } from "./app"
import { SandboxCore } from "./core"
import { MerchantPatchSchema, publicMerchant, type MerchantPatch, type MerchantSettings } from "./merchant"
import type { Fault, FaultInput } from "./faults"
import { FaultListSchema } from "./faults"
import type { DeliveryLogEntry, WebhookMode } from "./webhooks"
import type { LookupLogEntry } from "./lookups"

export type { MerchantPatch, MerchantSettings } from "./merchant"
export type { DeliveryLogEntry, WebhookMode } from "./webhooks"
export type { LookupLogEntry } from "./lookups"
export type { Fault, FaultInput, FaultRoute } from "./faults"
export { FAULT_ROUTES } from "./faults"
export { BANKS, CURRENCIES } from "./catalog"
export { TRANSITIONS, ACTIONS, type Action } from "./transitions"
export { SandboxCore } from "./core"

export interface SandboxOptions {
  port?: number
  host?: string
  apiKey?: string
  webhookUrl?: string | null
  paymentWindowSeconds?: number
  whitelist?: string[]
  dataFile?: string
  publicUrl?: string
  externalPaymentPageUrl?: boolean
  successUrl?: string | null
  failureUrl?: string | null
  supportLink?: string | null
  webhookMode?: WebhookMode
  webhookDelayMs?: number
  webhookShuffleWindowMs?: number
  webhookRetryDelaysMs?: number[]
  webhookTimeoutMs?: number
  requisitesPerMethod?: number
  sweepIntervalMs?: number
  seed?: number
}

export interface RunningSandbox {
  /** http://HOST:PORT (wildcard hosts shown as loopback). */
  url: string
  host: string
  port: number
  close(): Promise<void>
  core: SandboxCore
  transactions(): Transaction[]
  transaction(id: string): Transaction | undefined
  deliveries(): DeliveryLogEntry[]
  /** The pay-in lookups answered to the merchant (`GET /_sandbox/lookups`). */
  lookups(): LookupLogEntry[]
  webhooksIdle(): Promise<void>
  merchant(): Omit<MerchantSettings, "apiKey">
  updateMerchant(patch: MerchantPatch): Omit<MerchantSettings, "apiKey">
  setFaults(faults: FaultInput[]): Fault[]
  clearFaults(): void
  advanceClock(seconds: number): void
  now(): Date
}

const MERCHANT_OPTION_KEYS = [
  "apiKey",
  "webhookUrl",
  "paymentWindowSeconds",
  "whitelist",
  "successUrl",
  "failureUrl",
  "supportLink",
  "externalPaymentPageUrl",
  "webhookMode",
  "webhookDelayMs",
  "webhookShuffleWindowMs",
  "webhookRetryDelaysMs",
  "webhookTimeoutMs",
  "requisitesPerMethod",
] as const

/** "[::1]" for IPv6, loopback for wildcard binds. */
export function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1"
  if (host === "::") return "[::1]"
  return host.includes(":") ? `[${host}]` : host
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const merchantInput: Record<string, unknown> = {}
  for (const key of MERCHANT_OPTION_KEYS) {
    if (options[key] !== undefined) merchantInput[key] = options[key]
  }
  const merchant = MerchantPatchSchema.safeParse(merchantInput)
  if (!merchant.success) {
    throw new Error(
      `invalid sandbox options: ${merchant.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`
    )
  }
  const core = new SandboxCore({ merchant: merchant.data, dataFile: options.dataFile, seed: options.seed })

  const sleeps = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>()
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          sleeps.delete(entry)
          resolve()
        }, ms),
        resolve,
      }
      sleeps.add(entry)
    })

  const app = createApp({ core, sleep })
  const server: Server = createServer(getRequestListener(app.fetch))
  server.keepAliveTimeout = 65_000
  const host = options.host ?? "127.0.0.1"
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject)
      resolve()
    })
  })
  const port = (server.address() as AddressInfo).port
  const url = `http://${urlHost(host)}:${port}`
  core.publicUrl = (options.publicUrl ?? url).replace(/\/+$/, "")

  const sweepTimer = setInterval(() => core.sweep(), options.sweepIntervalMs ?? 1000)
  sweepTimer.unref()
  core.sweep()

  let closing: Promise<void> | null = null
  const close = () =>
    (closing ??= (async () => {
      clearInterval(sweepTimer)
      for (const entry of sleeps) {
        clearTimeout(entry.timer)
        entry.resolve()
      }
      sleeps.clear()
      await core.close()
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
    })())

  return {
    url,
    host,
    port,
    close,
    core,
    transactions: () => core.store.all().map((r) => core.view(r)),
    transaction: (id) => {
      const record = core.store.get(id)
      return record ? core.view(record) : undefined
    },
    deliveries: () => core.webhooks.log(),
    lookups: () => core.lookups.list(),
    webhooksIdle: () => core.webhooks.idle(),
    merchant: () => publicMerchant(core.merchant),
    updateMerchant: (patch) => publicMerchant(core.updateMerchant(MerchantPatchSchema.parse(patch))),
    setFaults: (faults) => {
      core.faults.set(FaultListSchema.parse(faults))
      return core.faults.list()
    },
    clearFaults: () => core.faults.clear(),
    advanceClock: (seconds) => core.advanceClock(seconds),
    now: () => new Date(core.clock.now()),
  }
}
