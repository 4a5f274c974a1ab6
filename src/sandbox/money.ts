// Integer cents and crypto micro-units (1e-6), rates as decimal strings: no float maths past the request boundary.

/** Cents of a JSON number that has at most two fraction digits (checked by the schema). */
export function centsFromNumber(value: number): number {
  return centsFromDecimalString(value.toFixed(2))
}

/** Cents of a decimal string like "12", "12.3" or "12.34"; throws on anything else. */
export function centsFromDecimalString(value: string): number {
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(value.trim())
  if (!match) {
    throw new Error(`not a decimal amount with at most 2 fraction digits: ${value}`)
  }
  const whole = Number(match[1])
  const fraction = Number((match[2] ?? "").padEnd(2, "0"))
  const cents = whole * 100 + fraction
  if (!Number.isSafeInteger(cents)) {
    throw new Error(`amount out of range: ${value}`)
  }
  return cents
}

export function formatCents(cents: number): string {
  const negative = cents < 0
  const abs = Math.abs(Math.trunc(cents))
  const whole = Math.floor(abs / 100)
  const fraction = abs % 100
  return `${negative ? "-" : ""}${whole}.${fraction < 10 ? "0" : ""}${fraction}`
}

export interface Rational {
  num: bigint
  den: bigint
}

const rateCache = new Map<string, Rational>()

/** "96.45" -> 9645/100 (memoised: rates come from a small catalogue). */
export function parseRate(rate: string): Rational {
  let parsed = rateCache.get(rate)
  if (!parsed) {
    parsed = parseRateUncached(rate)
    if (rateCache.size < 1000) rateCache.set(rate, parsed)
  }
  return parsed
}

function parseRateUncached(rate: string): Rational {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(rate)
  if (!match) {
    throw new Error(`not a decimal rate: ${rate}`)
  }
  const fraction = match[2] ?? ""
  const num = BigInt(match[1] + fraction)
  if (num === 0n) {
    throw new Error("rate must be positive")
  }
  return { num, den: 10n ** BigInt(fraction.length) }
}

function divRoundHalfUp(n: bigint, d: bigint): bigint {
  const q = n / d
  const r = n % d
  return r * 2n >= d ? q + 1n : q
}

/** Micro-units (1e-6) of crypto bought by `cents` of fiat at `rate` fiat per 1 crypto unit, half-up. */
export function cryptoMicroUnits(cents: number, rate: Rational): bigint {
  // cents / 100 / rate * 1e6 = cents * 1e4 * den / num
  return divRoundHalfUp(BigInt(cents) * 10_000n * rate.den, rate.num)
}

/** Fee in the same unit as `amount`, `basisPoints` / 10000 of it, half-up. */
export function feeOf(amount: bigint, basisPoints: number): bigint {
  return divRoundHalfUp(amount * BigInt(basisPoints), 10_000n)
}

/** `cents` of one fiat currency in another, both at their rate per 1 crypto unit, half-up (what a shopper's bank converting a transfer roughly gives). */
export function convertCents(cents: number, from: Rational, to: Rational): number {
  // cents / from * to = cents * from.den * to.num / (from.num * to.den)
  return Number(divRoundHalfUp(BigInt(cents) * from.den * to.num, from.num * to.den))
}
