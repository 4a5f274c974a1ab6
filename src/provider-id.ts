/**
 * The provider id of a pay-in instance: built and parsed here only. Medusa registers a payment
 * provider as `pp_<identifier>_<id>`; this plugin's identifier is `payin`, so instance `default`
 * is `pp_payin_default`, and its webhook URL is `/hooks/payin/default`. No imports: the storefront
 * kit uses it too.
 */

/** Static identifier of the payment provider. */
export const PAYIN_PROVIDER_IDENTIFIER = "payin"

const PREFIX = `pp_${PAYIN_PROVIDER_IDENTIFIER}_`

/** Medusa's id of a provider instance, e.g. `pp_payin_default`. */
export function payinProviderId(instanceId = "default"): string {
  return `${PREFIX}${instanceId}`
}

/** Whether a Medusa payment provider id is one of this plugin's (`pp_payin_…`). */
export function isPayinProvider(providerId: string | null | undefined): providerId is string {
  return typeof providerId === "string" && providerId.startsWith(PREFIX) && providerId.length > PREFIX.length
}

/** `pp_payin_<id>` → `<id>`; null for another provider's id. */
export function instanceIdOf(providerId: string): string | null {
  return isPayinProvider(providerId) ? providerId.slice(PREFIX.length) : null
}
