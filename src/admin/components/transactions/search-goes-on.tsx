// A broad search's short page (README src/api "Search, pages and counts"): the server read its
// window of pay-ins before the page was full; Next searches on from there.
import { Text } from "@medusajs/ui"
import { SEARCH_WINDOW } from "../../../modules/payin/ledger/limits"
import type { TransactionsPage } from "../../lib/transactions-api"

export function isShortPageThatGoesOn(data: Pick<TransactionsPage, "transactions" | "next_cursor"> | undefined, pageSize: number): boolean {
  return Boolean(data?.next_cursor) && (data?.transactions.length ?? 0) < pageSize
}

export function SearchGoesOn({ t, language }: { t: (k: string, o?: Record<string, unknown>) => string; language: string }) {
  return (
    <Text size="small" className="text-ui-fg-subtle px-6 py-4" data-testid="payin-search-goes-on">
      {t("payin.transactions.searchGoesOn", { window: SEARCH_WINDOW.toLocaleString(language) })}
    </Text>
  )
}
