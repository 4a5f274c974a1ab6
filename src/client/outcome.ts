import type { PayinErrorKind } from "./errors"

/** ok, or what went wrong, in the words an operator acts on (401: the key; 403: the IP whitelist). */
export const SERVICE_OUTCOMES = [
  "ok",
  "timeout",
  "server_error",
  "throttled",
  "key_refused",
  "ip_not_whitelisted",
  "network",
  "not_found",
  "refused",
  "requisites_unavailable",
  "duplicate_external_id",
  "malformed_answer",
  "answer_too_large",
  "address_not_allowed",
  "other",
] as const
export type ServiceOutcome = (typeof SERVICE_OUTCOMES)[number]

const BY_KIND: Record<PayinErrorKind, ServiceOutcome> = {
  unauthorized: "key_refused",
  ip_not_whitelisted: "ip_not_whitelisted",
  requisites_unavailable: "requisites_unavailable",
  duplicate_external_id: "duplicate_external_id",
  not_found: "not_found",
  validation: "refused",
  server: "server_error",
  timeout: "timeout",
  network: "network",
  malformed_response: "malformed_answer",
  response_too_large: "answer_too_large",
  address_not_allowed: "address_not_allowed",
}

/** A call's outcome from what it threw (a PayinServiceError's kind and status; anything else is "other"). */
export function serviceOutcomeOf(error: unknown): ServiceOutcome {
  const kind = (error as { kind?: unknown } | null)?.kind
  if (typeof kind !== "string" || !Object.prototype.hasOwnProperty.call(BY_KIND, kind)) return "other"
  // "server" also covers 429 and 408: the service asking to slow down is not a 5xx
  if (kind === "server") {
    const status = (error as { details?: { status?: unknown } }).details?.status
    return typeof status === "number" && status < 500 ? "throttled" : "server_error"
  }
  return BY_KIND[kind as PayinErrorKind]
}
