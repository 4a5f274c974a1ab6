import { z } from "zod"
import {
  DUPLICATE_EXTERNAL_ID_CODES,
  PayinIpNotWhitelistedError,
  PayinNotFoundError,
  PayinRequisitesUnavailableError,
  PayinServiceError,
  PayinUnauthorizedError,
  REQUISITES_UNAVAILABLE_CODES,
} from "./errors"

export type Answer = { status: number; text: string }

const ErrorBodyLoose = z.looseObject({ code: z.string().optional(), message: z.string().optional() })

/** `quote`: the service's code and message may go into the error (see PayinClientOptions.quoteAnswers). */
export function parseAnswer<S extends z.ZodType>(
  res: Answer,
  schema: S,
  method: string,
  path: string,
  quote: boolean
): z.output<S> {
  if (res.status >= 200 && res.status < 300) {
    let json: unknown
    try {
      json = JSON.parse(res.text)
    } catch (error) {
      throw new PayinServiceError(
        "malformed_response",
        `The payment service answered ${method} ${path} with a body that is not JSON`,
        { status: res.status, method, path },
        { cause: error }
      )
    }
    const parsed = schema.safeParse(json)
    if (!parsed.success) {
      if (!quote) {
        throw new PayinServiceError(
          "malformed_response",
          `The server answered ${method} ${path} with JSON that is not the payment service's`,
          { status: res.status, method, path }
        )
      }
      const fields = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
      throw new PayinServiceError(
        "malformed_response",
        `The payment service answered ${method} ${path} with an unexpected shape (${fields.join("; ")})`,
        { status: res.status, method, path, fields }
      )
    }
    return parsed.data
  }
  throw statusError(res, method, path, quote)
}

/** Accepts a bare array, or an object wrapping one under data/items/banks/currencies. */
export function unwrapList<S extends z.ZodType>(schema: S) {
  return z.preprocess((value) => {
    if (Array.isArray(value) || !value || typeof value !== "object") {
      return value
    }
    const record = value as Record<string, unknown>
    for (const key of ["data", "items", "result", "banks", "currencies"]) {
      if (Array.isArray(record[key])) {
        return record[key]
      }
    }
    return value
  }, schema)
}

/** Codes the client acts on: the only ones kept from an answer that is not quoted. */
const KNOWN_CODES = new Set(["MERCHANT_IP_NOT_WHITELISTED", ...REQUISITES_UNAVAILABLE_CODES, ...DUPLICATE_EXTERNAL_ID_CODES])

function statusError(res: Answer, method: string, path: string, quote: boolean): PayinServiceError {
  let code: string | undefined
  let serviceMessage: string | undefined
  let fields: unknown
  try {
    const body = JSON.parse(res.text)
    const parsed = ErrorBodyLoose.safeParse(body)
    if (parsed.success) {
      code = parsed.data.code
      serviceMessage = parsed.data.message?.slice(0, 300)
      const { statusCode: _s, code: _c, message: _m, ...rest } = body as Record<string, unknown>
      fields = Object.keys(rest).length ? rest : undefined
    }
  } catch {
    // not JSON: the status alone decides
  }
  if (!quote) {
    // not the service's answer (a URL typed in the admin): nothing of its text goes into the error
    code = code && KNOWN_CODES.has(code) ? code : undefined
    serviceMessage = undefined
    fields = undefined
  }
  const details = { status: res.status, code, fields, method, path, serviceMessage }
  if (res.status === 401) {
    return new PayinUnauthorizedError(details)
  }
  if (res.status === 403 && code === "MERCHANT_IP_NOT_WHITELISTED") {
    return new PayinIpNotWhitelistedError(details)
  }
  if (res.status === 404) {
    return new PayinNotFoundError(details)
  }
  if (code && REQUISITES_UNAVAILABLE_CODES.has(code)) {
    return new PayinRequisitesUnavailableError(details, serviceMessage)
  }
  if (code && DUPLICATE_EXTERNAL_ID_CODES.has(code)) {
    return new PayinServiceError(
      "duplicate_external_id",
      "The payment service already has a pay-in for this payment session",
      details
    )
  }
  const described = `${res.status}${code ? ` ${code}` : ""}${serviceMessage ? `: ${serviceMessage}` : ""}`
  if (res.status >= 500 || res.status === 429 || res.status === 408) {
    return new PayinServiceError("server", `The payment service failed ${method} ${path} (${described})`, details, {
      ambiguous: res.status >= 500,
      retryable: true,
    })
  }
  return new PayinServiceError("validation", `The payment service refused ${method} ${path} (${described})`, details)
}
