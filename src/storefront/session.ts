import { isFinalShopperState, shopperStateOf, type ShopperState } from "../status"
import type { PayinRequisiteView, PayinStatusView } from "./types"

export { isPayinProvider } from "../provider-id"

const str = (value: unknown): string | null => (typeof value === "string" && value ? value : null)

function stateOf(data: Record<string, unknown>): ShopperState {
  const status = str(data.payin_status)
  const state = shopperStateOf(status)
  if (state === "paid" || state === "failed" || state === "expired") return state
  // cancelPayment marks the session: the store ended this pay-in, it must not be paid into.
  if (data.payin_canceled === true) return "canceled"
  // The provider sets error_message once the pay-in can no longer be paid.
  if (str(data.error_message)) return status ? "expired" : "failed"
  return state
}

function requisiteOf(value: unknown): PayinRequisiteView | null {
  if (!value || typeof value !== "object") return null
  const r = value as Record<string, unknown>
  const number = str(r.number)
  if (!number) return null
  return { bank: str(r.bank) ?? "", owner_name: str(r.owner_name) ?? "", number, sbp_number: str(r.sbp_number) }
}

/** The view from a payment session's `data`, so instructions can show before any order exists; later status answers supersede it. */
export function fromSessionData(
  data: Record<string, unknown> | null | undefined,
  providerId: string,
  nowMs: number = Date.now()
): PayinStatusView {
  const d = data ?? {}
  const state = stateOf(d)
  const final = isFinalShopperState(state)
  const expiresAt = str(d.expires_at)
  const expires = expiresAt ? Date.parse(expiresAt) : NaN
  return {
    provider_id: providerId,
    payin_id: str(d.payin_id),
    state,
    service_status: str(d.payin_status) ?? "creating",
    final,
    amount: str(d.amount) ?? "",
    currency: (str(d.currency) ?? "").toUpperCase(),
    paid_amount: null,
    method: str(d.method),
    bank: str(d.bank),
    requisite: final ? null : requisiteOf(d.requisite),
    payment_page_url: final ? null : str(d.payment_page_url),
    created_at: str(d.created_at) ?? "",
    expires_at: expiresAt,
    seconds_left: Number.isFinite(expires) && !final ? Math.max(0, Math.ceil((expires - nowMs) / 1000)) : 0,
    paid_at: null,
  }
}
