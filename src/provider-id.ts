// Medusa registers a payment provider as `pp_<identifier>_<id>`; no imports, so the storefront kit uses this too.

export const PAYIN_PROVIDER_IDENTIFIER = "payin"

const PREFIX = `pp_${PAYIN_PROVIDER_IDENTIFIER}_`

/** An instance id, the `<id>` of `pp_payin_<id>` and `/hooks/payin/<id>`: what the options accept, telemetry sets and the admin filters by. */
export const INSTANCE_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/

/** A provider id of an instance: `pp_payin_` and an id of INSTANCE_ID_PATTERN. */
export const PROVIDER_ID_PATTERN = new RegExp(`^${PREFIX}${INSTANCE_ID_PATTERN.source.slice(1)}`)

export function payinProviderId(instanceId = "default"): string {
  return `${PREFIX}${instanceId}`
}

export function isPayinProvider(providerId: string | null | undefined): providerId is string {
  return typeof providerId === "string" && providerId.startsWith(PREFIX) && providerId.length > PREFIX.length
}

export function instanceIdOf(providerId: string): string | null {
  return isPayinProvider(providerId) ? providerId.slice(PREFIX.length) : null
}
