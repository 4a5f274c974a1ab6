import { isIP } from "net"

// Messages are safe to show a merchant and to log: never the API key, only the service's code and message.

export type PayinErrorKind =
  | "unauthorized"
  | "ip_not_whitelisted"
  | "requisites_unavailable"
  | "duplicate_external_id"
  | "not_found"
  | "validation"
  | "server"
  | "timeout"
  | "network"
  | "malformed_response"
  | "response_too_large"
  | "address_not_allowed"

export class PayinServiceError extends Error {
  /** True when the request may have taken effect at the service (timeouts, resets, 5xx). */
  readonly ambiguous: boolean
  readonly retryable: boolean

  constructor(
    readonly kind: PayinErrorKind,
    message: string,
    readonly details: {
      status?: number
      code?: string
      fields?: unknown
      method?: string
      path?: string
      serviceMessage?: string
    } = {},
    options: { ambiguous?: boolean; retryable?: boolean; cause?: unknown } = {}
  ) {
    super(message)
    this.name = "PayinServiceError"
    if (options.cause !== undefined) {
      Object.defineProperty(this, "cause", { value: options.cause, enumerable: false })
    }
    this.ambiguous = options.ambiguous ?? false
    this.retryable = options.retryable ?? false
  }

  get status(): number | undefined {
    return this.details.status
  }

  get code(): string | undefined {
    return this.details.code
  }
}

export class PayinUnauthorizedError extends PayinServiceError {
  constructor(details: PayinServiceError["details"]) {
    super(
      "unauthorized",
      "The payment service rejected the API key (401): check the key generated in the merchant panel",
      details
    )
    this.name = "PayinUnauthorizedError"
  }
}

export class PayinIpNotWhitelistedError extends PayinServiceError {
  /** The address the service saw, when its answer names one: the one to whitelist. */
  readonly address: string | null

  constructor(details: PayinServiceError["details"]) {
    const address = reportedAddress(details)
    super(
      "ip_not_whitelisted",
      `The payment service refused this server's address${address ? ` ${address}` : ""} (403 MERCHANT_IP_NOT_WHITELISTED): add the ` +
        "outgoing IP address of the Medusa server to the IP whitelist in the merchant panel, or empty the whitelist",
      details
    )
    this.name = "PayinIpNotWhitelistedError"
    this.address = address
  }
}

function reportedAddress(details: PayinServiceError["details"]): string | null {
  const fields = details.fields && typeof details.fields === "object" ? (details.fields as Record<string, unknown>) : {}
  const candidates = [fields.ip, fields.address, fields.clientIp, fields.remoteAddress, details.serviceMessage]
  for (const candidate of candidates) {
    if (typeof candidate !== "string") continue
    for (const token of candidate.split(/[\s,;()"'\[\]<>]+/)) {
      const bare = token.replace(/[.:]+$/, "").replace(/^::ffff:/i, "")
      if (isIP(bare)) return bare
    }
  }
  return null
}

export class PayinRequisitesUnavailableError extends PayinServiceError {
  constructor(details: PayinServiceError["details"], serviceMessage?: string) {
    super(
      "requisites_unavailable",
      `No payment requisites are available for this amount right now${serviceMessage ? ` (${serviceMessage})` : ""}: ` +
        "try again in a few minutes or another method or bank",
      details
    )
    this.name = "PayinRequisitesUnavailableError"
  }
}

export class PayinNotFoundError extends PayinServiceError {
  constructor(details: PayinServiceError["details"]) {
    super("not_found", "The payment service has no such transaction (404)", details)
    this.name = "PayinNotFoundError"
  }
}

/** Ambiguous: the request reached the server, so a POST may have taken effect; none of the answer is kept. */
export class PayinResponseTooLargeError extends PayinServiceError {
  constructor(details: PayinServiceError["details"], readonly limitBytes: number) {
    super(
      "response_too_large",
      `The answer to ${details.method ?? "the request"} ${details.path ?? ""} exceeded ${limitBytes} bytes and was not read (status ${details.status ?? "unknown"})`,
      details,
      { ambiguous: true }
    )
    this.name = "PayinResponseTooLargeError"
  }
}

export const REQUISITES_UNAVAILABLE_CODES = new Set([
  "REQUISITES_UNAVAILABLE",
  "REQUISITES_NOT_AVAILABLE",
  "NO_REQUISITES",
  "REQUISITE_NOT_FOUND",
])
export const DUPLICATE_EXTERNAL_ID_CODES = new Set(["DUPLICATE_EXTERNAL_ID", "DUPLICATE_EXTERNAL_TRANSACTION_ID"])

export function isPayinServiceError(error: unknown): error is PayinServiceError {
  return error instanceof PayinServiceError
}

/** A readable message for anything thrown (Medusa workflows sometimes throw plain objects). */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) {
    return error.message
  }
  if (error && typeof error === "object" && typeof (error as { message?: unknown }).message === "string") {
    return (error as { message: string }).message
  }
  try {
    return JSON.stringify(error) ?? String(error)
  } catch {
    return String(error)
  }
}
