// How many pay-ins match, as the API counts them: exact, "about N" or "N+".
import { Text } from "@medusajs/ui"
import type { TransactionsPage } from "../../lib/transactions-api"

export function CountText({ data, first, t, language }: { data: TransactionsPage; first: number; t: (k: string, o?: Record<string, unknown>) => string; language: string }) {
  if (!data.transactions.length) return null
  const range = { from: first + 1, to: first + data.transactions.length }
  const total = data.count.toLocaleString(language)
  const text = data.count_is_lower_bound
    ? t("payin.transactions.countAtLeast", { ...range, total })
    : data.count_is_estimate
      ? t("payin.transactions.countAbout", { ...range, total })
      : t("payin.transactions.count", { ...range, count: data.count })
  return (
    <Text
      size="small"
      className="text-ui-fg-subtle"
      data-testid="payin-transactions-count"
      data-estimate={data.count_is_estimate ? (data.count_is_lower_bound ? "at-least" : "about") : "exact"}
    >
      {text}
    </Text>
  )
}
