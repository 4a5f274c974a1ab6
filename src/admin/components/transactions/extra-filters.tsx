// The list's filters that links bring (the insights page's figures): bank, method, paid, the
// creation days and the instance. Shown as one line with a Clear button; kept in the URL.
import { Button, Text } from "@medusajs/ui"
import { useTranslation } from "react-i18next"

/** URL parameters the transactions list forwards to the API as they are. */
export const LINKED_FILTERS = ["bank", "method", "paid", "created_from", "created_to", "provider_id"] as const

export function ExtraFilters({ params, update }: { params: URLSearchParams; update: (changes: Record<string, string>) => void }) {
  const { t } = useTranslation()
  const given = LINKED_FILTERS.filter((key) => params.get(key))
  if (!given.length) return null
  return (
    <div className="flex flex-wrap items-center gap-2 px-6 py-2" data-testid="payin-transactions-linked-filters">
      <Text size="small" className="text-ui-fg-subtle">{t("payin.transactions.filteredBy")}</Text>
      {given.map((key) => (
        <code key={key} className="txt-compact-small bg-ui-bg-subtle rounded px-1" data-testid={`payin-filter-${key}`}>
          {key}={params.get(key)}
        </code>
      ))}
      <Button size="small" variant="transparent" onClick={() => update(Object.fromEntries(given.map((key) => [key, ""])))} data-testid="payin-filters-clear">
        {t("payin.transactions.clearFilters")}
      </Button>
    </div>
  )
}
