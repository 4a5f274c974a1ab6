/** RFC 4180, with a leading ' on formula-like cells against spreadsheet formula injection (OWASP "CSV Injection"). */
export type CsvValue = string | number | boolean | null | undefined

const FORMULA_START = /^[=+\-@\t\r]/
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/
const NEEDS_QUOTES = /[",\r\n]/
const SPECIAL = /^[=+\-@\t\r]|[",\r\n]/

export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return ""
  const text = String(value)
  if (!SPECIAL.test(text)) return text
  if (FORMULA_START.test(text) && !PLAIN_NUMBER.test(text)) {
    return `"'${text.replace(/"/g, '""')}"`
  }
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

export function csvLine(values: readonly CsvValue[]): string {
  return `${values.map(csvCell).join(",")}\r\n`
}
