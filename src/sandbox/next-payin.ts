import { z } from "zod"
import { hasAtMostTwoDecimals, MAX_FIAT_AMOUNT } from "../client/schemas"
import { findCurrency } from "./catalog"
import { centsFromDecimalString, centsFromNumber, formatCents } from "./money"

// `/_sandbox/next-payin`: the next created pay-ins come back with another amount or currency, to emulate a service that created something else than asked; in memory only.

const MAX_CENTS = MAX_FIAT_AMOUNT * 100

/** A decimal string with exactly 2 fraction digits ("12.50") or a JSON number with at most 2; parsed to cents. */
const OverrideAmountSchema = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const fail = (message: string) => {
    ctx.addIssue({ code: "custom", message })
    return z.NEVER
  }
  let cents: number
  if (typeof value === "string") {
    if (!/^\d+\.\d{2}$/.test(value)) return fail('must be a decimal string with 2 fraction digits, e.g. "12.50"')
    if (value.length > 13) return fail(`must be > 0 and at most ${MAX_FIAT_AMOUNT}`)
    cents = centsFromDecimalString(value)
  } else {
    if (!hasAtMostTwoDecimals(value)) return fail("must be a number with at most 2 fraction digits")
    if (value <= 0 || value > MAX_FIAT_AMOUNT) return fail(`must be > 0 and at most ${MAX_FIAT_AMOUNT}`)
    cents = centsFromNumber(value)
  }
  if (cents <= 0 || cents > MAX_CENTS) return fail(`must be > 0 and at most ${MAX_FIAT_AMOUNT}`)
  return cents
})

/** 3 letters, any case, of a currency the sandbox serves; upper-cased. */
const OverrideCurrencySchema = z.string().transform((code, ctx) => {
  if (!/^[A-Za-z]{3}$/.test(code)) {
    ctx.addIssue({ code: "custom", message: "must be a 3-letter ISO 4217 code" })
    return z.NEVER
  }
  if (!findCurrency(code)) {
    ctx.addIssue({ code: "custom", message: "unsupported currency (see GET /payment/trading/currency)" })
    return z.NEVER
  }
  return code.toUpperCase()
})

export const NextPayInBodySchema = z
  .strictObject({
    fiatAmount: OverrideAmountSchema.optional(),
    fiatCurrency: OverrideCurrencySchema.optional(),
    count: z.number().int().min(1).max(100).default(1),
  })
  .superRefine((body, ctx) => {
    if (body.fiatAmount === undefined && body.fiatCurrency === undefined) {
      ctx.addIssue({ code: "custom", path: ["fiatAmount"], message: "give fiatAmount and/or fiatCurrency" })
    }
  })
export type NextPayInBody = z.output<typeof NextPayInBodySchema>

export interface NextPayInOverride {
  cents?: number
  fiatCurrency?: string
  /** Creations this override still applies to (>= 1). */
  remaining: number
}

/** Public view of a queued override: only the overriding fields, plus the creations left. */
export interface NextPayInView {
  fiatAmount?: string
  fiatCurrency?: string
  count: number
}

export class NextPayInQueue {
  private queue: NextPayInOverride[] = []

  add(body: NextPayInBody): void {
    this.queue.push({
      ...(body.fiatAmount !== undefined ? { cents: body.fiatAmount } : {}),
      ...(body.fiatCurrency !== undefined ? { fiatCurrency: body.fiatCurrency } : {}),
      remaining: body.count,
    })
  }

  /** The override the next successful creation gets (not consumed). */
  peek(): Readonly<NextPayInOverride> | undefined {
    return this.queue[0]
  }

  /** Called once a creation that used `peek()` succeeded. */
  consume(): void {
    const head = this.queue[0]
    if (!head) return
    head.remaining -= 1
    if (head.remaining <= 0) this.queue.shift()
  }

  clear(): void {
    this.queue = []
  }

  get size(): number {
    return this.queue.length
  }

  list(): NextPayInView[] {
    return this.queue.map((o) => ({
      ...(o.cents !== undefined ? { fiatAmount: formatCents(o.cents) } : {}),
      ...(o.fiatCurrency !== undefined ? { fiatCurrency: o.fiatCurrency } : {}),
      count: o.remaining,
    }))
  }
}
