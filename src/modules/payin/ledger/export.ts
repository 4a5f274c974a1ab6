import type { CsvValue } from "./csv"
import type { ExportRow } from "./queries"

export const EXPORT_COLUMNS = [
  "ledger_id",
  "service_id",
  "order_id",
  "order_display_id",
  "created_at",
  "closed_at",
  "requested_amount",
  "currency",
  "received_amount",
  "crypto_amount",
  "currency_rate",
  "merchant_fee",
  "status",
  "flags",
  "captured",
] as const

const iso = (value: Date | string | null) => (value instanceof Date ? value.toISOString() : value ? new Date(value).toISOString() : null)

export function exportCells(row: ExportRow, displayIds: Map<string, number>): CsvValue[] {
  return [
    row.id,
    row.service_id,
    row.order_id,
    row.order_id ? (displayIds.get(row.order_id) ?? null) : null,
    iso(row.created_at),
    iso(row.paid_at),
    row.requested_amount,
    row.currency_code,
    row.received_amount,
    row.crypto_amount,
    row.currency_rate,
    row.merchant_fee,
    row.status,
    (row.flag_kinds ?? []).join(" "),
    row.captured,
  ]
}

