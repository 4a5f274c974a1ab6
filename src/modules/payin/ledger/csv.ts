/**
 * CSV as RFC 4180 writes it (comma separated, CRLF line ends, a field with a comma, quote, CR or
 * LF in double quotes with its quotes doubled), with cells protected against spreadsheet formula
 * injection (OWASP "CSV Injection"): a cell starting with =, +, -, @, a tab or a carriage return
 * gets a leading single quote (and is quoted), so a spreadsheet shows it as text instead of
 * running it. A plain decimal number (such as -12.50) is left as it is: it is no formula.
 */
export type CsvValue = string | number | boolean | null | undefined

const FORMULA_START = /^[=+\-@\t\r]/
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/
const NEEDS_QUOTES = /[",\r\n]/
/** Either of the above: most cells need neither (one test). */
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

/** One record: the cells, comma separated, ending with CRLF. */
export function csvLine(values: readonly CsvValue[]): string {
  return `${values.map(csvCell).join(",")}\r\n`
}
