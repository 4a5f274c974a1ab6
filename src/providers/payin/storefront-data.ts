import { MedusaError } from "@medusajs/framework/utils"
import { z } from "zod"
import { PayinProviderOptions } from "../../modules/payin/settings/options"
import { PAYIN_METHODS } from "../../client/schemas"
import { payinError } from "./payin-error"

export const CLIENT_CONTEXT_KEY = "payin_client"

export const ClientContextSchema = z.object({
  ip: z.string().max(64).optional(),
  user_agent: z.string().max(1024).optional(),
  payment_collection_id: z.string().max(64).optional(),
})
export type ClientContext = z.infer<typeof ClientContextSchema>

export const StorefrontDataSchema = z
  .object({
    method: z.enum(PAYIN_METHODS, { error: `method must be one of: ${PAYIN_METHODS.join(", ")}` }).optional(),
    bank: z.string().trim().min(1, { message: "bank must not be empty" }).max(128).optional(),
    success_url: z.string().max(2048).optional(),
    failure_url: z.string().max(2048).optional(),
    locale: z
      .string()
      .regex(/^[A-Za-z]{2}(?:[-_][A-Za-z]{2})?$/, { message: 'locale must be a language code such as "EN" or "RU"' })
      .transform((v) => v.toUpperCase())
      .optional(),
  })
  .strict()
export type StorefrontData = z.infer<typeof StorefrontDataSchema>
export const STOREFRONT_KEYS = Object.keys(StorefrontDataSchema.shape)

/** Written over whatever was sent: session_id by Medusa, CLIENT_CONTEXT_KEY by the store middleware. */
const SERVER_KEYS = new Set(["session_id", CLIENT_CONTEXT_KEY])

/** What the provider writes into a session's data besides the storefront's keys (session-data.ts, answer.ts). */
export const PROVIDER_KEYS = [
  "payin_id",
  "payin_ledger_id",
  "payin_status",
  "amount",
  "currency",
  "requisite",
  "payment_page_url",
  "created_at",
  "expires_at",
  "error_message",
  "payin_canceled",
  "payin_not_captured",
  "payin_refunds",
] as const

/** Every provider key unset: an answer starts from it, so no key of the request survives it (Medusa keeps what is not answered). */
export const NO_PROVIDER_KEYS: Record<string, undefined> = Object.fromEntries(PROVIDER_KEYS.map((k) => [k, undefined]))

export type ParsedSessionInput = StorefrontData & { client: ClientContext }

export function clientContextOf(data: Record<string, unknown> | undefined): ClientContext {
  const client = ClientContextSchema.safeParse(data?.[CLIENT_CONTEXT_KEY] ?? {})
  return client.success ? client.data : {}
}

/**
 * `ownCopy`: the data carries the provider's keys as the provider wrote them for a pay-in of this
 * payment collection (Medusa re-creates a session it deleted from its stored data when the
 * workflow that deleted it fails): they are left out, not refused (the session then gets that
 * pay-in or nothing: creation.ts restoreOwnPayin); otherwise they are unknown keys. Every other
 * key is checked the same either way.
 */
export function parseStorefrontData(
  data: Record<string, unknown> | undefined,
  options: PayinProviderOptions,
  { ownCopy = false }: { ownCopy?: boolean } = {}
): ParsedSessionInput {
  const storefront: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(data ?? {})) {
    if (SERVER_KEYS.has(key) || (ownCopy && (PROVIDER_KEYS as readonly string[]).includes(key))) continue
    // an unknown key is refused whatever its value; a storefront key sent as null is left out
    if (value !== undefined && value !== null || !(key in StorefrontDataSchema.shape)) {
      storefront[key] = value
    }
  }
  const parsed = StorefrontDataSchema.safeParse(storefront)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const message =
      issue.code === "unrecognized_keys"
        ? `Unknown payment data field(s): ${issue.keys.join(", ")}. Allowed: ${STOREFRONT_KEYS.join(", ")}`
        : `Invalid payment data: ${issue.path.join(".") || "data"}: ${issue.message}`
    throw payinError(MedusaError.Types.INVALID_DATA, message, "payin_invalid_data")
  }
  const value = parsed.data
  if (value.method && options.allowedMethods.length && !options.allowedMethods.includes(value.method)) {
    throw payinError(MedusaError.Types.INVALID_DATA, `Payment method "${value.method}" is not offered by this store. Offered: ${options.allowedMethods.join(", ")}`, "payin_invalid_data")
  }
  if (value.bank && options.allowedBanks.length && !options.allowedBanks.includes(value.bank)) {
    throw payinError(MedusaError.Types.INVALID_DATA, `Bank "${value.bank}" is not offered by this store. Offered: ${options.allowedBanks.join(", ")}`, "payin_invalid_data")
  }
  for (const key of ["success_url", "failure_url"] as const) {
    const url = value[key]
    if (url !== undefined && !isAllowedRedirect(url, options.allowedRedirectOrigins)) {
      throw payinError(MedusaError.Types.INVALID_DATA, `${key} must be an http(s) URL on one of the store's allowed redirect origins` +
          (options.allowedRedirectOrigins.length ? ` (${options.allowedRedirectOrigins.join(", ")})` : " (none are configured)"), "payin_invalid_data")
    }
  }
  return { ...value, client: clientContextOf(data) }
}

export function isAllowedRedirect(url: string, allowedOrigins: string[]): boolean {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    return false
  }
  // Userinfo tricks (https://shop.example@evil.example) are refused outright.
  if (parsed.username || parsed.password) {
    return false
  }
  return allowedOrigins.includes(parsed.origin)
}
