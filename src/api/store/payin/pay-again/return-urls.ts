import type { MedusaContainer } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import type { LedgerRow } from "../../../../modules/payin/service"
import { isAllowedRedirect } from "../../../../providers/payin/storefront-data"

export type ReturnUrls = { success_url?: string; failure_url?: string }

const KEYS = ["success_url", "failure_url"] as const

/**
 * The return URLs of the order's newest pay-in session that has any, read from the payment
 * module (a session's data is what the storefront sent, kept by the provider's answers), so new
 * details paid on the Payment Page lead back to the store as the first ones did. A URL whose
 * origin is no longer allowed is left out: the shopper did not send it, so it must not refuse
 * the request (the instance's Payment Page default applies instead).
 */
export async function earlierReturnUrls(
  scope: MedusaContainer,
  rows: readonly LedgerRow[],
  allowedOrigins: string[]
): Promise<ReturnUrls> {
  const ids = [...new Set(rows.map((r) => r.session_id).filter((id): id is string => Boolean(id)))]
  if (!ids.length) return {}
  const sessions = await scope.resolve(Modules.PAYMENT).listPaymentSessions({ id: ids }, { select: ["id", "data"] })
  const dataOf = new Map(sessions.map((s) => [s.id, (s.data ?? {}) as Record<string, unknown>]))
  for (const row of rows) {
    const data = row.session_id ? dataOf.get(row.session_id) : undefined
    if (!data) continue // its session was replaced (deleted) since
    const urls: ReturnUrls = {}
    for (const key of KEYS) {
      const url = data[key]
      if (typeof url === "string" && isAllowedRedirect(url, allowedOrigins)) urls[key] = url
    }
    if (urls.success_url || urls.failure_url) return urls
  }
  return {}
}
