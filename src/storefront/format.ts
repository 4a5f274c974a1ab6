import { splitDecimal } from "../money/decimal"

export { formatAmount } from "../money/display"

export type RequisiteKind = "card" | "account" | "phone" | "link" | "other"

export function requisiteKind(number: string, method: string | null | undefined): RequisiteKind {
  switch (method) {
    case "card":
    case "quasi":
      return "card"
    case "account":
      return "account"
    case "phone_number":
    case "mobile_comm":
      return "phone"
    case "qr":
    case "link":
    case "deeplink":
      return "link"
  }
  const value = String(number ?? "").trim()
  if (/^[a-z][a-z0-9+.-]*:/i.test(value)) return "link"
  const compact = value.replace(/[\s-]/g, "")
  if (/^\+\d{8,15}$/.test(compact)) return "phone"
  if (/^\d{13,19}$/.test(compact)) return "card"
  if (/^\d{20}$/.test(compact) || /^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(compact)) return "account"
  return "other"
}

function chunks(value: string, sizes: number[]): string {
  const out: string[] = []
  let at = 0
  for (const size of sizes) {
    if (at >= value.length) break
    out.push(value.slice(at, at + size))
    at += size
  }
  if (at < value.length) out.push(value.slice(at))
  return out.join(" ")
}

function everyN(value: string, n: number): string {
  return value.replace(new RegExp(`(.{${n}})(?=.)`, "g"), "$1 ")
}

// ITU country calling codes: 1 and 7 are one digit, these are two, everything else is three.
const TWO_DIGIT_CODES = new Set(
  "20 27 30 31 32 33 34 36 39 40 41 43 44 45 46 47 48 49 51 52 53 54 55 56 57 58 60 61 62 63 64 65 66 81 82 84 86 90 91 92 93 94 95 98".split(" ")
)

/** `+7XXXXXXXXXX` from the ways a Russian (or Kazakh) number is written, else `+<digits>`. */
function normalizePhone(value: string): string | null {
  const compact = value.trim().replace(/[\s()\-.]/g, "")
  if (!/^\+?\d{8,15}$/.test(compact)) return null
  const digits = compact.replace("+", "")
  if (!compact.startsWith("+") && digits.length === 11 && (digits[0] === "8" || digits[0] === "7")) {
    return `+7${digits.slice(1)}`
  }
  return `+${digits}`
}

function formatPhone(value: string): string {
  const phone = normalizePhone(value)
  if (!phone) return value
  const digits = phone.slice(1)
  if (digits[0] === "7" && digits.length === 11) {
    const n = digits.slice(1)
    return `+7 ${n.slice(0, 3)} ${n.slice(3, 6)}-${n.slice(6, 8)}-${n.slice(8)}`
  }
  const codeLength = digits[0] === "1" || digits[0] === "7" ? 1 : TWO_DIGIT_CODES.has(digits.slice(0, 2)) ? 2 : 3
  const national = digits.slice(codeLength)
  // Threes from the left, never leaving a lone digit at the end: a neutral grouping that reads fine everywhere.
  const groups = national.match(/\d{1,3}/g) ?? []
  if (groups.length > 1 && groups[groups.length - 1].length === 1) {
    const last = groups.pop() as string
    groups[groups.length - 1] += last
  }
  return `+${digits.slice(0, codeLength)} ${groups.join(" ")}`
}

/** Anything that does not look like what the method says is returned unchanged, so nothing is ever hidden. */
export function formatRequisite(number: string, method: string | null | undefined): string {
  if (typeof number !== "string") return number
  const kind = requisiteKind(number, method)
  const compact = number.trim().replace(/[\s-]/g, "")
  switch (kind) {
    case "card":
      return /^\d{12,19}$/.test(compact) ? everyN(compact, 4) : number
    case "account":
      if (/^\d{20}$/.test(compact)) return chunks(compact, [5, 3, 1, 4, 7])
      return /^[A-Za-z0-9]{5,34}$/.test(compact) ? everyN(compact, 4) : number
    case "phone":
      return formatPhone(number)
    default:
      return number
  }
}

/** What a banking app accepts when pasted: cards and accounts without spaces, phones as `+7…`, the amount as a plain decimal. */
export function copyValue(value: string, kind: "amount" | "sbp" | string | null | undefined): string {
  const trimmed = String(value ?? "").trim()
  if (kind === "amount") {
    const parts = splitDecimal(trimmed.replace(/\s/g, ""))
    return parts ? `${parts.negative ? "-" : ""}${parts.integer}${parts.fraction ? `.${parts.fraction}` : ""}` : trimmed
  }
  const type = kind === "sbp" ? "phone" : requisiteKind(trimmed, kind)
  switch (type) {
    case "phone":
      return normalizePhone(trimmed) ?? trimmed
    case "card":
    case "account": {
      const compact = trimmed.replace(/[\s-]/g, "")
      return /^[A-Za-z0-9]+$/.test(compact) ? compact : trimmed
    }
    default:
      return trimmed
  }
}

/** In the shopper's time zone unless `timeZone` is given; `""` when `iso` is not a date. */
export function formatDateTime(iso: string | null | undefined, locale: string = "en", timeZone?: string): string {
  const time = typeof iso === "string" ? Date.parse(iso) : NaN
  if (!Number.isFinite(time)) return ""
  try {
    return new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short", timeZone }).format(time)
  } catch {
    return new Date(time).toISOString()
  }
}
