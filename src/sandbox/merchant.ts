import { z } from "zod"
import { HttpUrlSchema, SupportLinkSchema } from "../client/schemas"
import type { WebhookMode } from "./webhooks"
import { whitelistError } from "./whitelist"

/** The sandbox merchant's settings (the merchant panel of the real service, plus sandbox knobs). */
export interface MerchantSettings {
  apiKey: string
  webhookUrl: string | null
  paymentWindowSeconds: number
  whitelist: string[]
  successUrl: string | null
  failureUrl: string | null
  supportLink: string | null
  /** Whether transactions carry externalPaymentPageUrl. */
  externalPaymentPageUrl: boolean
  webhookMode: WebhookMode
  webhookDelayMs: number
  webhookShuffleWindowMs: number
  webhookRetryDelaysMs: number[]
  webhookTimeoutMs: number
  /** Size of each (bank, currency, method) requisite pool. */
  requisitesPerMethod: number
}

export const DEFAULT_API_KEY = "sandbox_api_key"
export const DEFAULT_PAYMENT_WINDOW_SECONDS = 900
/** 1 s, 5 s, 30 s, 2 min, 10 min: six attempts in all, the last about 12.5 min after the first. */
export const DEFAULT_RETRY_DELAYS_MS = [1_000, 5_000, 30_000, 120_000, 600_000]

export function defaultMerchant(): MerchantSettings {
  return {
    apiKey: DEFAULT_API_KEY,
    webhookUrl: null,
    paymentWindowSeconds: DEFAULT_PAYMENT_WINDOW_SECONDS,
    whitelist: [],
    successUrl: null,
    failureUrl: null,
    supportLink: null,
    externalPaymentPageUrl: true,
    webhookMode: "in_order",
    webhookDelayMs: 1_000,
    webhookShuffleWindowMs: 250,
    webhookRetryDelaysMs: [...DEFAULT_RETRY_DELAYS_MS],
    webhookTimeoutMs: 10_000,
    requisitesPerMethod: 3,
  }
}

const WhitelistSchema = z
  .array(z.string().min(1).max(64))
  .max(1000)
  .superRefine((entries, ctx) => {
    const error = whitelistError(entries)
    if (error) ctx.addIssue({ code: "custom", message: error })
  })

/** Body of PUT /_sandbox/merchant (and the shape of the library's merchant options): all optional. */
export const MerchantPatchSchema = z.strictObject({
  apiKey: z.string().min(1).max(256).optional(),
  webhookUrl: HttpUrlSchema.nullable().optional(),
  paymentWindowSeconds: z.number().int().min(1).max(30 * 24 * 3600).optional(),
  whitelist: WhitelistSchema.optional(),
  successUrl: HttpUrlSchema.nullable().optional(),
  failureUrl: HttpUrlSchema.nullable().optional(),
  supportLink: SupportLinkSchema.nullable().optional(),
  externalPaymentPageUrl: z.boolean().optional(),
  webhookMode: z.enum(["in_order", "shuffled", "delayed"]).optional(),
  webhookDelayMs: z.number().int().min(0).max(3_600_000).optional(),
  webhookShuffleWindowMs: z.number().int().min(0).max(60_000).optional(),
  webhookRetryDelaysMs: z.array(z.number().int().min(0).max(24 * 3_600_000)).max(20).optional(),
  webhookTimeoutMs: z.number().int().min(1).max(120_000).optional(),
  requisitesPerMethod: z.number().int().min(1).max(1000).optional(),
})
export type MerchantPatch = z.infer<typeof MerchantPatchSchema>

export function applyMerchantPatch(settings: MerchantSettings, patch: MerchantPatch): MerchantSettings {
  const changes = Object.entries(patch).filter(([, value]) => value !== undefined)
  return { ...settings, ...Object.fromEntries(changes.map(([key, value]) => [key, Array.isArray(value) ? [...value] : value])) }
}

/** The settings as the control API shows them: everything but the API key. */
export function publicMerchant(settings: MerchantSettings): Omit<MerchantSettings, "apiKey"> {
  const { apiKey: _omitted, ...rest } = settings
  return rest
}
