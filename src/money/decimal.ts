// Numbers are read through their shortest decimal spelling (`String(1.005)` is "1.005"), as bignumber.js and Medusa's MathBN read them.

/** An exact decimal: `units × 10^-scale`, scale ≥ 0 (the fraction digits as written, trailing zeros kept). */
export type Decimal = { readonly units: bigint; readonly scale: number }

/** What an amount may come as: a decimal string, a number, a bigint, a Decimal, `{ value }` (Medusa's raw amount), or an object whose `toString()` spells a number (Medusa's BigNumber, bignumber.js). */
export type AmountInput = string | number | bigint | Decimal | { value?: unknown; precision?: number } | { toString(): string }

const ZERO = BigInt(0)
const ONE = BigInt(1)
const TEN = BigInt(10)
/** Exponents beyond this are not amounts (and 10^e would take long to build). */
const MAX_EXPONENT = 10_000

const NUMBER = /^([+-])?(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:e([+-]?\d+))?$/i
const PLAIN = /^([+-])?(\d+)(?:\.(\d+))?$/

function pow10(n: number): bigint {
  return TEN ** BigInt(n)
}

function isDecimal(value: unknown): value is Decimal {
  return typeof value === "object" && value !== null && typeof (value as Decimal).units === "bigint" && typeof (value as Decimal).scale === "number"
}

function parseText(text: string): Decimal | null {
  const match = NUMBER.exec(text.trim())
  if (!match) return null
  const [, sign, int, frac = "", fracOnly, exp] = match
  const fraction = fracOnly ?? frac
  const exponent = exp === undefined ? 0 : Number(exp)
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > MAX_EXPONENT) return null
  let units = BigInt((int ?? "") + fraction || "0")
  let scale = fraction.length - exponent
  if (scale < 0) {
    units *= pow10(-scale)
    scale = 0
  }
  return { units: sign === "-" ? -units : units, scale }
}

export function parseDecimal(value: unknown): Decimal | null {
  if (isDecimal(value)) return value
  if (typeof value === "bigint") return { units: value, scale: 0 }
  if (typeof value === "number") return Number.isFinite(value) ? parseText(String(value)) : null
  if (typeof value === "string") return parseText(value)
  if (typeof value === "object" && value !== null) {
    if ("value" in value) {
      const inner = (value as { value?: unknown }).value
      return typeof inner === "string" || typeof inner === "number" ? parseDecimal(inner) : null
    }
    if (typeof value.toString === "function" && value.toString !== Object.prototype.toString) {
      return parseText(String(value))
    }
  }
  return null
}

/** The parts of a plain decimal string as written ("-1790.50" → sign "-", "1790", "50"); null for anything else (exponents included). */
export function splitDecimal(text: string): { negative: boolean; integer: string; fraction: string } | null {
  const match = typeof text === "string" ? PLAIN.exec(text.trim()) : null
  return match ? { negative: match[1] === "-", integer: match[2], fraction: match[3] ?? "" } : null
}

function rescale(d: Decimal, scale: number): Decimal {
  return scale <= d.scale ? d : { units: d.units * pow10(scale - d.scale), scale }
}

function aligned(a: Decimal, b: Decimal): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale)
  return [rescale(a, scale).units, rescale(b, scale).units, scale]
}

export function normalize(d: Decimal): Decimal {
  let { units, scale } = d
  while (scale > 0 && units % TEN === ZERO) {
    units /= TEN
    scale -= 1
  }
  return { units, scale }
}

export function compare(a: Decimal, b: Decimal): -1 | 0 | 1 {
  const [x, y] = aligned(a, b)
  return x < y ? -1 : x > y ? 1 : 0
}

/** Like comparisons with NaN, false when either side is not a number. */
export function eq(a: AmountInput, b: AmountInput): boolean {
  const [x, y] = [parseDecimal(a), parseDecimal(b)]
  return x !== null && y !== null && compare(x, y) === 0
}

export function lt(a: AmountInput, b: AmountInput): boolean {
  const [x, y] = [parseDecimal(a), parseDecimal(b)]
  return x !== null && y !== null && compare(x, y) < 0
}

export function gt(a: AmountInput, b: AmountInput): boolean {
  return lt(b, a)
}

export function min(a: AmountInput, b: AmountInput): Decimal | null {
  const [x, y] = [parseDecimal(a), parseDecimal(b)]
  if (x === null || y === null) return null
  return compare(y, x) < 0 ? y : x
}

export function add(a: Decimal, b: Decimal): Decimal {
  const [x, y, scale] = aligned(a, b)
  return { units: x + y, scale }
}

/**
 * The exact sum, or null when an amount is not a number. `missing: "zero"` counts an amount left
 * out (null, undefined, a raw amount without its value) as 0; by default it makes the sum unknown too.
 */
export function sumAmounts(amounts: readonly unknown[], missing: "zero" | "unknown" = "unknown"): Decimal | null {
  let sum: Decimal = { units: ZERO, scale: 0 }
  for (const amount of amounts) {
    const value = parseDecimal(amount) ?? (missing === "zero" && isMissing(amount) ? { units: ZERO, scale: 0 } : null)
    if (!value) return null
    sum = add(sum, value)
  }
  return sum
}

const isMissing = (amount: unknown) =>
  amount === null || amount === undefined || (typeof amount === "object" && (amount as { value?: unknown }).value === undefined)

export function subtract(a: Decimal, b: Decimal): Decimal {
  const [x, y, scale] = aligned(a, b)
  return { units: x - y, scale }
}

export function multiply(a: Decimal, b: Decimal): Decimal {
  return { units: a.units * b.units, scale: a.scale + b.scale }
}

export function isPositive(d: Decimal): boolean {
  return d.units > ZERO
}

/** "half-up" rounds ties away from zero (bignumber.js ROUND_HALF_UP); "down" cuts towards zero. */
export function round(d: Decimal, digits: number, mode: "half-up" | "down" = "half-up"): Decimal {
  if (d.scale <= digits) return rescale(d, digits)
  const divisor = pow10(d.scale - digits)
  let units = d.units / divisor // truncates towards zero
  const rest = d.units % divisor
  if (mode === "half-up") {
    const magnitude = rest < ZERO ? -rest : rest
    if (magnitude * BigInt(2) >= divisor) units += d.units < ZERO ? -ONE : ONE
  }
  return { units, scale: digits }
}

function write(d: Decimal): string {
  const negative = d.units < ZERO
  const digits = (negative ? -d.units : d.units).toString().padStart(d.scale + 1, "0")
  const body = d.scale ? `${digits.slice(0, -d.scale)}.${digits.slice(-d.scale)}` : digits
  return negative ? `-${body}` : body
}

export function toFixed(d: Decimal, digits: number): string {
  return write(round(d, digits))
}

export function toPlain(d: Decimal): string {
  return write(normalize(d))
}

export function toMinDigits(d: Decimal, digits: number): string {
  const plain = normalize(d)
  return write(plain.scale >= digits ? plain : rescale(plain, digits))
}
