import { MedusaError } from "@medusajs/framework/utils"

/** A callback or lookup names a service transaction that another merchant account's row holds. */
export class ForeignPayinError extends MedusaError {
  constructor(message: string) {
    super(MedusaError.Types.NOT_ALLOWED, message, "payin_foreign")
    this.name = "ForeignPayinError"
  }
}

/**
 * A status names another service transaction than the one the ledger row holds (the row was
 * claimed by another transaction since it was looked up). Not transient: the apply path resolves
 * the row again (ends as another row, or a new one flagged `unknown_payin`).
 */
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

/**
 * The runner of a pay-in's effect no longer holds it: another runner claimed the effect since
 * (its fencing token on the row moved on). It must stop and record nothing as done.
 */
export class EffectFencedError extends Error {
  constructor(ledgerId: string, fence: number) {
    super(`The effect of ${ledgerId} was claimed by another runner (fence ${fence} is stale)`)
    this.name = "EffectFencedError"
  }
}
