import { MathBN, MedusaError } from "@medusajs/framework/utils"
import { PayinServiceError } from "../../client/errors"
import type { PayInRequest } from "../../client/schemas"
import type { PayinProviderOptions } from "../../modules/payin/options"
import type { InitiatePaymentInput } from "@medusajs/framework/types"
import { toFiatAmount } from "./amount"
import type { parseStorefrontData } from "./storefront-data"
import { payinError } from "./payin-error"

/** The pay-in request for a session: the exact amount (or a range), the shopper's choices, payer data. */
export function buildPayInRequest(
  input: InitiatePaymentInput,
  chosen: ReturnType<typeof parseStorefrontData>,
  options: PayinProviderOptions,
  sessionId: string
) {
  const currency = input.currency_code.toUpperCase()
  const fiat = toFiatAmount(input.amount, input.currency_code)
  const range =
    options.amountPolicy.mode === "range" && options.amountPolicy.tolerancePercent > 0
      ? amountRange(fiat.decimal, options.amountPolicy.tolerancePercent)
      : undefined
  const request: PayInRequest = {
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

/** The merchant's Payment Page defaults with the storefront's allowed overrides. */
export function paymentPageConfig(
  chosen: ReturnType<typeof parseStorefrontData>,
  options: PayinProviderOptions
): PayInRequest["paymentPageConfig"] {
  const page = options.paymentPage
  const config: NonNullable<PayInRequest["paymentPageConfig"]> = {}
  const success = chosen.success_url ?? page.successUrl
  const failure = chosen.failure_url ?? page.failureUrl
  const locale = chosen.locale ?? page.locale
  if (success) config.success_redirect = success
  if (failure) config.error_redirect = failure
  if (page.supportLink) config.supportLink = page.supportLink
  if (locale) config.locale = locale
  return Object.keys(config).length ? config : undefined
}

/** fiatAmountRange for the "range" amount policy: from the total up to tolerance% above, in cents. */
export function amountRange(decimal: string, tolerancePercent: number): { min: number; max: number } {
  const min = MathBN.convert(decimal)
  const max = MathBN.mult(min, MathBN.add(1, MathBN.div(tolerancePercent, 100))).decimalPlaces(2, 1 /* ROUND_DOWN */)
  return { min: Number(min.toFixed(2)), max: Number(max.toFixed(2)) }
}

/** A clear error for the storefront (typed, with a code); the merchant-facing detail goes to the log. */
export function toMedusaError(error: unknown, action: string, providerId: string, logger: { error(m: string): void }): Error {
  if (MedusaError.isMedusaError(error)) {
    return error as Error
  }
  if (error instanceof PayinServiceError) {
    logger.error(`payin (${providerId}): could not ${action}: ${error.message}`)
    switch (error.kind) {
      case "requisites_unavailable":
        return payinError(MedusaError.Types.NOT_ALLOWED, error.message, "payin_requisites_unavailable")
      case "validation":
        return payinError(MedusaError.Types.INVALID_DATA, `The payment service refused the payment: ${error.message}`, "payin_rejected")
      case "unauthorized":
      case "ip_not_whitelisted":
        return payinError(MedusaError.Types.NOT_ALLOWED, "Pay-in payments are unavailable right now: the payment service refused the store's credentials. " +
            "Please choose another payment method.", "payin_unavailable")
      default:
        return payinError(MedusaError.Types.NOT_ALLOWED, "The payment service is not responding right now. Please try again in a minute.", "payin_unavailable")
    }
  }
  logger.error(`payin (${providerId}): could not ${action}: ${String(error)}`)
  return new MedusaError(
    MedusaError.Types.UNEXPECTED_STATE,
    `Could not ${action}: ${error instanceof Error ? error.message : "unknown error"}`
  )
}
