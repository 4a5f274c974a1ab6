import { MedusaError } from "@medusajs/framework/utils"
import { withCode, type PayinErrorCode } from "../../error-code"

type ErrorType = (typeof MedusaError.Types)[keyof typeof MedusaError.Types]

/**
 * A provider error a storefront can act on: Medusa's `code`, and the same code at the end of the
 * message (see src/error-code.ts), so it survives clients that keep only the message.
 */
export function payinError(type: ErrorType, message: string, code: PayinErrorCode): MedusaError {
  return new MedusaError(type, withCode(message, code), code)
}
