// Medusa registers a payment provider as `pp_<identifier>_<id>`; no imports, so the storefront kit uses this too.

export const PAYIN_PROVIDER_IDENTIFIER = "payin"

const PREFIX = `pp_${PAYIN_PROVIDER_IDENTIFIER}_`

export function payinProviderId(instanceId = "default"): string {
  return `${PREFIX}${instanceId}`
}

export function isPayinProvider(providerId: string | null | undefined): providerId is string {
  return typeof providerId === "string" && providerId.startsWith(PREFIX) && providerId.length > PREFIX.length
}

export function instanceIdOf(providerId: string): string | null {
  return isPayinProvider(providerId) ? providerId.slice(PREFIX.length) : null
}
