// The control API's request bodies (the shopper's and the test's moves), validated with zod.
import { z } from "zod"
import { FiatAmountNumberSchema, HttpUrlSchema } from "../client/schemas"
import { centsFromDecimalString, centsFromNumber } from "./money"

export const AmountInputSchema = z.union([
  z.string().regex(/^\d+(\.\d{1,2})?$/, "must be a decimal string with at most 2 fraction digits"),
  FiatAmountNumberSchema,
])

export function amountCents(value: string | number): number {
  return typeof value === "number" ? centsFromNumber(value) : centsFromDecimalString(value)
}

export const DisputeBodySchema = z.strictObject({ checkUrl: HttpUrlSchema.optional(), fiatAmount: AmountInputSchema.optional() }).optional()
export const RecalculateBodySchema = z.strictObject({ fiatAmount: AmountInputSchema })
export const PayBodySchema = z
  .strictObject({
    fiatAmount: AmountInputSchema.optional(),
    fiatCurrency: z.string().regex(/^[A-Za-z]{3}$/, "must be a 3-letter currency code").optional(),
  })
  .optional()
export const RepeatBodySchema = z.strictObject({ repeat: z.number().int().min(1).max(100).default(1) }).optional()
export const AdvanceBodySchema = z.strictObject({ seconds: z.number().min(0).max(10 * 365 * 24 * 3600) })
