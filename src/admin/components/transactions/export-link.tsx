// The CSV export of a period's pay-ins (created or closed in it), as a plain download link the
// browser streams to a file with the admin's session cookie.
import { Button, Input, Label, Select, Text } from "@medusajs/ui"
import { useMemo, useState } from "react"
import { useTranslation } from "react-i18next"
import { exportUrl } from "../../lib/transactions-api"

/** yyyy-mm-dd of a local date. */
const day = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`
/** Local midnight of a yyyy-mm-dd, plus `days`, as an ISO instant (the merchant's day, not UTC's). */
const midnight = (value: string, days = 0) => {
  const [y, m, d] = value.split("-").map(Number)
  return new Date(y, m - 1, d + days).toISOString()
}

export function ExportLink({ status, flag }: { status: string; flag: string }) {
  const { t } = useTranslation()
  const today = new Date()
  const [from, setFrom] = useState(day(new Date(today.getFullYear(), today.getMonth(), 1)))
  const [to, setTo] = useState(day(today))
  const [by, setBy] = useState<"created" | "closed">("created")
  const href = useMemo(() => {
    const q = new URLSearchParams()
    if (from) q.set("from", midnight(from))
    if (to) q.set("to", midnight(to, 1)) // the whole last day
    q.set("by", by)
    if (status) q.set("status", status)
    if (flag === "__any") q.set("has_flags", "true")
    else if (flag) q.set("flag", flag)
    return exportUrl(q)
  }, [from, to, by, status, flag])
  const invalid = Boolean(from && to && from > to)
  return (
    <div className="flex flex-wrap items-end gap-2 px-6 py-4" data-testid="payin-export">
      <div>
        <Label size="xsmall" htmlFor="payin-export-from">{t("payin.transactions.exportFrom")}</Label>
        <Input id="payin-export-from" size="small" type="date" value={from} onChange={(e) => setFrom(e.target.value)} data-testid="payin-export-from" />
      </div>
      <div>
        <Label size="xsmall" htmlFor="payin-export-to">{t("payin.transactions.exportTo")}</Label>
        <Input id="payin-export-to" size="small" type="date" value={to} onChange={(e) => setTo(e.target.value)} data-testid="payin-export-to" />
      </div>
      <div className="w-48" data-testid="payin-export-by">
        <Select value={by} onValueChange={(v) => setBy(v as "created" | "closed")} size="small">
          <Select.Trigger aria-label={t("payin.transactions.exportBy")}>
            <Select.Value />
          </Select.Trigger>
          <Select.Content>
            <Select.Item value="created">{t("payin.transactions.exportByCreated")}</Select.Item>
            <Select.Item value="closed">{t("payin.transactions.exportByClosed")}</Select.Item>
          </Select.Content>
        </Select>
      </div>
      {invalid ? (
        <Button size="small" variant="secondary" disabled>
          {t("payin.transactions.exportLink")}
        </Button>
      ) : (
        <Button size="small" variant="secondary" asChild>
          {/* a plain link: the browser streams the file to disk with the admin's session cookie */}
          <a href={href} download data-testid="payin-export-link">
            {t("payin.transactions.exportLink")}
          </a>
        </Button>
      )}
      <Text size="xsmall" className="text-ui-fg-subtle basis-full">
        {t("payin.transactions.exportHint")}
      </Text>
    </div>
  )
}
