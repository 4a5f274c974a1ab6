import type { LedgerRow } from "../../../../modules/payin/service"
import { isAllowedRedirect } from "../../../../providers/payin/storefront-data"

export type ReturnUrls = { success_url?: string; failure_url?: string }

const KEYS = ["success_url", "failure_url"] as const

/**
 * The return URLs of the order's newest pay-in that has any, as its storefront sent them (kept in
 * the ledger when the pay-in was made, whatever became of its session since), so new details paid
 * on the Payment Page lead back to the store as the first ones did. A URL whose origin is no
 * longer allowed is left out: the shopper did not send it, so it must not refuse the request (the
 * instance's Payment Page default applies instead).
 */
export function earlierReturnUrls(rows: readonly Pick<LedgerRow, "return_urls">[], allowedOrigins: string[]): ReturnUrls {
  for (const row of rows) {
    const kept = (row.return_urls ?? {}) as Record<string, unknown>
    const urls: ReturnUrls = {}
    for (const key of KEYS) {
      const url = kept[key]
      if (typeof url === "string" && isAllowedRedirect(url, allowedOrigins)) urls[key] = url
    }
    if (urls.success_url || urls.failure_url) return urls
  }
  return {}
}
