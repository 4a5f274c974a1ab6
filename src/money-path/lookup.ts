import { MedusaContainer } from "@medusajs/framework/types"
import { PAYIN_MODULE } from "../modules/payin/key"
import { PayinServiceError } from "../client/errors"
import type { LedgerRow, StatusSource } from "../modules/payin/ledger/types"
import type PayinModuleService from "../modules/payin/service"
import { instanceIdOf } from "../provider-id"
import { applyPayinEvent } from "./apply"

export type ReconcileOneResult = {
  found: boolean
  changed: boolean
  from: string
  to: string
  effects: string[]
  effectPending: boolean
  /** Nothing new: no lock taken, nothing written. */
  unchanged?: boolean
}

export async function reconcileWithService(
  container: MedusaContainer,
  rowOrId: LedgerRow | string,
  source: Exclude<StatusSource, "create" | "webhook" | "authorize">,
  { skipUnchanged = false }: { skipUnchanged?: boolean } = {}
): Promise<ReconcileOneResult> {
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const row = typeof rowOrId === "string" ? await payin.ledger.get(rowOrId) : rowOrId
  if (!row) {
    throw new PayinServiceError("not_found", `No pay-in ${String(rowOrId)} in this store`)
  }
  const instanceId = instanceIdOf(row.provider_id)
  if (!instanceId) {
    throw new PayinServiceError("unauthorized", `The pay-in ${row.id} belongs to no pay-in provider instance (${row.provider_id})`)
  }
  const same = { found: true, changed: false, from: row.status, to: row.status, effects: [], effectPending: Boolean(row.effect_pending) }
  const transaction = await payin.clients.withClient(instanceId, (service) => service.lookUp({ id: row.service_id, externalId: row.session_id }))
  if (!transaction) {
    if (row.status === "creating" && !row.service_id) {
      await payin.ledger.recordCreationFailure(row.id, "no pay-in at the service")
      return { ...same, found: false, changed: true, to: "failed" }
    }
    return { ...same, found: false }
  }
  if (skipUnchanged && transaction.status === row.status && transaction.fiatAmount === row.fiat_amount && !row.effect_pending) {
    return { ...same, unchanged: true }
  }
  const result = await applyPayinEvent(container, { instanceId, transaction, source })
  return {
    found: true,
    changed: result.changed,
    from: row.status,
    to: result.status,
    effects: result.effects,
    effectPending: result.effectPending,
  }
}
