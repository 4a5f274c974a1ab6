import type { Dispatcher } from "undici"
import { RefusedAddressError } from "./address"
import { PayinResponseTooLargeError, PayinServiceError } from "./errors"

export class DeadlineError extends Error {
  constructor() {
    super("deadline passed")
    this.name = "TimeoutError"
  }
}

/** A longer answer (declared or streamed) stops the read and closes the connection, none of its text kept. */
export async function readCapped(res: Dispatcher.ResponseData, max: number, method: string, path: string): Promise<string> {
  const tooLarge = () => {
    res.body.on("error", () => undefined) // destroying an unread body reports the abort: nobody waits for it
    res.body.destroy()
    return new PayinResponseTooLargeError({ status: res.statusCode, method, path }, max)
  }
  const declared = Number(res.headers["content-length"])
  if (Number.isFinite(declared) && declared > max) {
    throw tooLarge()
  }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of res.body) {
    size += (chunk as Buffer).length
    if (size > max) {
      throw tooLarge()
    }
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks, size).toString("utf8")
}

export function addressError(error: RefusedAddressError, method: string, path: string): PayinServiceError {
  return new PayinServiceError(
    "address_not_allowed",
    `Refused to call ${method} ${path}: ${error.reason} (a base URL typed in the admin must be a public address)`,
    { method, path, code: error.code },
    { cause: error }
  )
}

/** `within`: what a timeout waited for ("15000 ms", or the operation's deadline). */
export function transportError(error: unknown, method: string, path: string, within: string): PayinServiceError {
  if (error instanceof RefusedAddressError) {
    return addressError(error, method, path)
  }
  if ((error as { code?: unknown })?.code === "ADDRESS_NOT_ALLOWED") {
    return addressError(new RefusedAddressError(String((error as Error).message).replace(/^refused to connect: /, "")), method, path)
  }
  const rawCode = (error as { code?: unknown })?.code
  const name = (error as { name?: unknown })?.name
  const code = typeof rawCode === "string" ? rawCode : typeof name === "string" ? name : undefined
  const timedOut =
    code === "UND_ERR_HEADERS_TIMEOUT" ||
    code === "UND_ERR_BODY_TIMEOUT" ||
    code === "UND_ERR_CONNECT_TIMEOUT" ||
    name === "TimeoutError" ||
    name === "AbortError"
  if (timedOut) {
    return new PayinServiceError(
      "timeout",
      `The payment service did not answer ${method} ${path} within ${within}`,
      { method, path },
      { ambiguous: true, retryable: true, cause: error }
    )
  }
  // Refused before anything was sent cannot have taken effect; anything later might have.
  const notSent = code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN"
  return new PayinServiceError(
    "network",
    `Could not reach the payment service for ${method} ${path} (${code ?? "connection error"})`,
    { method, path },
    { ambiguous: !notSent, retryable: true, cause: error }
  )
}
