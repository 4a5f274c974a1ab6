import { z } from "zod"
import { SERVICE_STATUSES, type ServiceStatus } from "../status"
import { PAYIN_METHODS } from "./methods"

// Response schemas are tolerant (they parse the REAL service's answers); request schemas are strict, and the sandbox validates with them, so the two cannot drift.

export { PAYIN_METHODS }
export const PayinMethodSchema = z.enum(PAYIN_METHODS)
export type PayinMethod = z.infer<typeof PayinMethodSchema>

export const TransactionStatusSchema = z.enum(SERVICE_STATUSES)
export type TransactionStatus = ServiceStatus

/** Largest fiat amount the schemas accept (the spec gives no bound; this keeps cents exact). */
export const MAX_FIAT_AMOUNT = 1_000_000_000

export function hasAtMostTwoDecimals(value: number): boolean {
  return Number.isFinite(value) && Number(value.toFixed(2)) === value
}

export const FiatAmountNumberSchema = z
  .number()
  .positive()
  .max(MAX_FIAT_AMOUNT)
  .refine(hasAtMostTwoDecimals, { message: "must have at most 2 fraction digits" })

export const DECIMAL_2_PATTERN = /^-?\d+\.\d{2}$/
export const Decimal2StringSchema = z.string().regex(DECIMAL_2_PATTERN, "must be a decimal with 2 fraction digits")
export const FiatAmountStringSchema = z
  .string()
  .regex(/^\d{1,12}\.\d{2}$/, "must be a non-negative decimal with 2 fraction digits, e.g. \"1500.00\"")
export const DigitStringSchema = z.string().regex(/^\d+$/, "must be a string of digits")

export const PayerInfoSchema = z.looseObject({
  ip: z.string().optional(),
  userId: z.string().optional(),
  userAgent: z.string().optional(),
  fingerprint: z.string().optional(),
  registeredAt: z.number().int().optional(),
})
export type PayerInfo = z.infer<typeof PayerInfoSchema>

export const ExtraSchema = z.looseObject({
  payerInfo: PayerInfoSchema.optional(),
  externalTransactionId: z.string().optional(),
})
export type Extra = z.infer<typeof ExtraSchema>

/** Stricter Extra for requests: the fields the spec types must have their types. */
export const ExtraRequestSchema = z.looseObject({
  payerInfo: z
    .looseObject({
      ip: z.string().max(64).optional(),
      userId: z.string().max(256).optional(),
      userAgent: z.string().max(1024).optional(),
      fingerprint: z.string().regex(/^[0-9a-fA-F]*$/, "must be a hex string").max(256).optional(),
      registeredAt: z.number().int().nonnegative().optional(),
    })
    .optional(),
  externalTransactionId: z.string().min(1).max(256).optional(),
})
export type ExtraRequest = z.infer<typeof ExtraRequestSchema>

export const HttpUrlSchema = z
  .string()
  .max(2048)
  .refine(
    (value) => {
      try {
        const url = new URL(value)
        return url.protocol === "http:" || url.protocol === "https:"
      } catch {
        return false
      }
    },
    { message: "must be an absolute http(s) URL" }
  )

export const SupportLinkSchema = z
  .string()
  .max(2048)
  .refine(
    (value) => {
      try {
        const url = new URL(value)
        return ["http:", "https:", "mailto:", "tel:"].includes(url.protocol)
      } catch {
        return false
      }
    },
    { message: "must be an http(s), mailto: or tel: URL" }
  )

export const PaymentPageConfigSchema = z.looseObject({
  success_redirect: HttpUrlSchema.optional(),
  error_redirect: HttpUrlSchema.optional(),
  supportLink: SupportLinkSchema.optional(),
  locale: z.string().max(16).optional(),
})
export type PaymentPageConfig = z.infer<typeof PaymentPageConfigSchema>

export const FiatAmountRangeSchema = z
  .object({ min: FiatAmountNumberSchema, max: FiatAmountNumberSchema })
  .refine((range) => range.min <= range.max, { message: "min must not exceed max", path: ["min"] })
export type FiatAmountRange = z.infer<typeof FiatAmountRangeSchema>

export const FiatCurrencyCodeSchema = z.string().regex(/^[A-Za-z]{3}$/, "must be a 3-letter ISO 4217 code")

export const PayinRequestSchema = z
  .object({
    fiatAmount: FiatAmountNumberSchema.optional(),
    fiatAmountRange: FiatAmountRangeSchema.optional(),
    fiatCurrency: FiatCurrencyCodeSchema,
    method: PayinMethodSchema.optional(),
    bank: z.string().min(1).max(128).optional(),
    extra: ExtraRequestSchema.optional(),
    paymentPageConfig: PaymentPageConfigSchema.optional(),
  })
  .superRefine((body, ctx) => {
    const given = Number(body.fiatAmount !== undefined) + Number(body.fiatAmountRange !== undefined)
    if (given !== 1) {
      ctx.addIssue({
        code: "custom",
        path: ["fiatAmount"],
        message: "give exactly one of fiatAmount or fiatAmountRange",
      })
    }
  })
export type PayinRequest = z.infer<typeof PayinRequestSchema>

export const RequisiteSchema = z.looseObject({
  id: z.string(),
  bank: z.string(),
  ownerName: z.string(),
  sbpNumber: z.string().nullable().optional(),
  requisites: z.string(),
  fiatCurrency: z.string(),
})
export type Requisite = z.infer<typeof RequisiteSchema>

export const TransactionSchema = z.looseObject({
  id: z.string().min(1),
  fiatAmount: FiatAmountStringSchema,
  cryptoAmount: z.string(),
  merchantFee: z.string(),
  currencyRate: z.string(),
  type: z.string(),
  status: TransactionStatusSchema,
  bank: z.string(),
  fiatCurrency: z.string(),
  cryptoCurrency: z.string(),
  cryptoNetwork: z.string(),
  payoutInvoicesUrl: z.array(z.unknown()),
  disputeMerchantCheckUrl: z.string().nullable(),
  disputeTraderCheckUrl: z.string().nullable(),
  disputeMerchantFiatAmount: z.string(),
  disputeTraderFiatAmount: z.string(),
  requisite: RequisiteSchema,
  extra: ExtraSchema,
  createdAt: z.string(),
  externalPaymentPageUrl: z.string().optional(),
})
export type Transaction = z.infer<typeof TransactionSchema>

export const BankSchema = z.looseObject({
  name: z.string(),
  methods: z.array(z.string()),
})
export type Bank = z.infer<typeof BankSchema>
export const BankListSchema = z.array(BankSchema)

export const CurrencySchema = z.looseObject({
  fiatCurrency: z.string(),
  cryptoCurrency: z.string(),
  cryptoNetwork: z.string(),
  rate: z.union([z.string(), z.number()]),
})
export type Currency = z.infer<typeof CurrencySchema>
export const CurrencyListSchema = z.array(CurrencySchema)

export const ErrorBodySchema = z.looseObject({
  statusCode: z.number().int(),
  code: z.string(),
  message: z.string(),
})
export type ErrorBody = z.infer<typeof ErrorBodySchema>

// Pay-out: its shape is "not shown" by the spec; this is the sandbox's minimal documented shape.

export const PayOutRequestSchema = z.looseObject({
  fiatAmount: FiatAmountNumberSchema,
  fiatCurrency: FiatCurrencyCodeSchema,
  bank: z.string().min(1).max(128).optional(),
  requisites: z.string().min(1).max(256),
  ownerName: z.string().max(256).optional(),
  extra: ExtraRequestSchema.optional(),
})
export type PayOutRequest = z.infer<typeof PayOutRequestSchema>

export const PayOutSchema = z.looseObject({
  id: z.string(),
  type: z.string(),
  status: z.string(),
  fiatAmount: z.string(),
  fiatCurrency: z.string(),
  createdAt: z.string(),
})
export type PayOut = z.infer<typeof PayOutSchema>
