// The ledger's filters: a search, a status, a flag (or any flag). Each change writes the URL.
import { Input, Select } from "@medusajs/ui"
import { useState } from "react"
import { useTranslation } from "react-i18next"
import { LEDGER_STATUSES, PAYIN_FLAGS } from "../../../status"
import { flagLabel } from "../common"

export function TransactionFilters({
  query,
  status,
  flag,
  update,
}: {
  query: string
  status: string
  flag: string
  update: (changes: Record<string, string>) => void
}) {
  const { t } = useTranslation()
  const [search, setSearch] = useState(query)
  return (
    <div className="flex flex-wrap items-center gap-2 px-6 py-4">
      <form
        role="search"
        onSubmit={(e) => {
          e.preventDefault()
          update({ q: search.trim() })
        }}
      >
        <Input
          size="small"
          // not type="search": Medusa's Input then adds a magnifier role="img" without a name
          type="text"
          placeholder={t("payin.transactions.search")}
          aria-label={t("payin.transactions.search")}
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          data-testid="payin-filter-search"
        />
      </form>
      <div className="w-48" data-testid="payin-filter-status">
        <Select value={status || "__all"} onValueChange={(v) => update({ status: v === "__all" ? "" : v })} size="small">
          <Select.Trigger aria-label={t("payin.transactions.status")}>
            <Select.Value />
          </Select.Trigger>
          <Select.Content>
            <Select.Item value="__all">{t("payin.transactions.allStatuses")}</Select.Item>
            {LEDGER_STATUSES.map((s) => (
              <Select.Item key={s} value={s}>
                {t(`payin.status.${s}`)}
              </Select.Item>
            ))}
          </Select.Content>
        </Select>
      </div>
      <div className="w-48" data-testid="payin-filter-flag">
        <Select value={flag || "__all"} onValueChange={(v) => update({ flag: v === "__all" ? "" : v })} size="small">
          <Select.Trigger aria-label={t("payin.transactions.flags")}>
            <Select.Value />
          </Select.Trigger>
          <Select.Content>
            <Select.Item value="__all">{t("payin.transactions.allFlags")}</Select.Item>
            <Select.Item value="__any">{t("payin.transactions.withFlags")}</Select.Item>
            {PAYIN_FLAGS.map((f) => (
              <Select.Item key={f} value={f}>
                {flagLabel(t, f)}
              </Select.Item>
            ))}
          </Select.Content>
        </Select>
      </div>
    </div>
  )
}
