import { MedusaError } from "@medusajs/framework/utils"
import { withCode, type PayinErrorCode } from "../../error-code"

type ErrorType = (typeof MedusaError.Types)[keyof typeof MedusaError.Types]

/** The code also ends the message: some clients keep only the message. */
export function payinError(type: ErrorType, message: string, code: PayinErrorCode): MedusaError {
  return new MedusaError(type, withCode(message, code), code)
}
