import { MedusaError } from "@medusajs/framework/utils"
import { PayinServiceError } from "../../client/errors"
import { MAX_FIAT_AMOUNT, type PayinRequest } from "../../client/schemas"
import type { PayinProviderOptions } from "../../modules/payin/settings/options"
import type { InitiatePaymentInput } from "@medusajs/framework/types"
import { AmountError, type FiatAmount, amountRange, toFiatAmount } from "../../money"
import type { parseStorefrontData } from "./storefront-data"
import { payinError } from "./payin-error"
import { PAYIN_ERROR_CODES } from "../../error-code"

export function buildPayinRequest(
  input: InitiatePaymentInput,
  chosen: ReturnType<typeof parseStorefrontData>,
  options: PayinProviderOptions,
  sessionId: string
) {
  const currency = input.currency_code.toUpperCase()
  const fiat = fiatAmountOf(input)
  const range =
    options.amountPolicy.mode === "range" && options.amountPolicy.tolerancePercent > 0
      ? amountRange(fiat.decimal, options.amountPolicy.tolerancePercent)
      : undefined
  const request: PayinRequest = {
    fiatCurrency: currency,
    ...(range ? { fiatAmountRange: range } : { fiatAmount: fiat.value }),
    ...(chosen.method ? { method: chosen.method } : {}),
    ...(chosen.bank ? { bank: chosen.bank } : {}),
    extra: {
      externalTransactionId: sessionId,
      payerInfo: {
        ...(input.context?.customer?.id ? { userId: input.context.customer.id } : {}),
        ...(chosen.client.ip ? { ip: chosen.client.ip } : {}),
        ...(chosen.client.user_agent ? { userAgent: chosen.client.user_agent } : {}),
      },
    },
    paymentPageConfig: paymentPageConfig(chosen, options),
  }
  return { request, fiat, range, currency }
}

export function paymentPageConfig(
  chosen: ReturnType<typeof parseStorefrontData>,
  options: PayinProviderOptions
): PayinRequest["paymentPageConfig"] {
  const page = options.paymentPage
  const config: NonNullable<PayinRequest["paymentPageConfig"]> = {}
  const success = chosen.success_url ?? page.successUrl
  const failure = chosen.failure_url ?? page.failureUrl
  const locale = chosen.locale ?? page.locale
  if (success) config.success_redirect = success
  if (failure) config.error_redirect = failure
  if (page.supportLink) config.supportLink = page.supportLink
  if (locale) config.locale = locale
  return Object.keys(config).length ? config : undefined
}

export function fiatAmountOf(input: Pick<InitiatePaymentInput, "amount" | "currency_code">): FiatAmount {
  try {
    return toFiatAmount(input.amount, input.currency_code, MAX_FIAT_AMOUNT)
  } catch (error) {
    throw error instanceof AmountError ? new MedusaError(MedusaError.Types.INVALID_DATA, error.message) : error
  }
}

/** Fixed texts: the words of the service or the database can name tables, SQL, hosts or the merchant's setup. */
export const SHOPPER_TEXT = {
  requisites: "No payment requisites are available for this amount right now: try again in a few minutes, or choose another method or bank.",
  rejected: "The payment service refused this payment. Please choose another payment method, or try again later.",
  credentials:
    "Pay-in payments are unavailable right now: the payment service refused the store's credentials. Please choose another payment method.",
  notResponding: "The payment service is not responding right now. Please try again in a minute.",
  internal: "The payment could not be started right now. Please try again in a minute, or choose another payment method.",
} as const

export function redact(text: string, secrets: readonly (string | null | undefined)[]): string {
  let out = text
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join("[redacted]")
  }
  return out
}

function detailOf(error: unknown): string {
  if (error instanceof PayinServiceError) {
    const { status, code } = error.details
    return `${error.message}${status || code ? ` [${[status, code].filter(Boolean).join(" ")}]` : ""}`
  }
  return error instanceof Error ? error.message : String(error)
}

function isShopperError(error: unknown): error is MedusaError {
  return MedusaError.isMedusaError(error) && (PAYIN_ERROR_CODES as readonly string[]).includes(String((error as MedusaError).code))
}

export function toMedusaError(
  error: unknown,
  action: string,
  providerId: string,
  logger: { error(m: string): void },
  secrets: readonly (string | null | undefined)[] = []
): Error {
  if (isShopperError(error)) {
    return error as Error
  }
  logger.error(`payin (${providerId}): could not ${action}: ${redact(detailOf(error), secrets)}`)
  if (error instanceof PayinServiceError) {
    switch (error.kind) {
      case "requisites_unavailable":
        return payinError(MedusaError.Types.NOT_ALLOWED, SHOPPER_TEXT.requisites, "payin_requisites_unavailable")
      case "validation":
        return payinError(MedusaError.Types.INVALID_DATA, SHOPPER_TEXT.rejected, "payin_rejected")
      case "unauthorized":
      case "ip_not_whitelisted":
        return payinError(MedusaError.Types.NOT_ALLOWED, SHOPPER_TEXT.credentials, "payin_unavailable")
      default:
        return payinError(MedusaError.Types.NOT_ALLOWED, SHOPPER_TEXT.notResponding, "payin_unavailable")
    }
  }
  return payinError(MedusaError.Types.UNEXPECTED_STATE, SHOPPER_TEXT.internal, "payin_unavailable")
}
