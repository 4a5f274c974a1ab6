import { MedusaError } from "@medusajs/framework/utils"

export class ForeignPayinError extends MedusaError {
  constructor(message: string) {
    super(MedusaError.Types.NOT_ALLOWED, message, "payin_foreign")
    this.name = "ForeignPayinError"
  }
}

/** Not transient: the apply path resolves the row again (another row, or a new one flagged `unknown_payin`). */
export class ServiceIdMismatchError extends MedusaError {
  constructor(
    message: string,
    readonly ledgerId: string,
    readonly serviceId: string
  ) {
    super(MedusaError.Types.CONFLICT, message, "payin_service_id_mismatch")
    this.name = "ServiceIdMismatchError"
  }
}

export class EffectFencedError extends Error {
  constructor(ledgerId: string, fence: number) {
    super(`The effect of ${ledgerId} was claimed by another runner (fence ${fence} is stale)`)
    this.name = "EffectFencedError"
  }
}
