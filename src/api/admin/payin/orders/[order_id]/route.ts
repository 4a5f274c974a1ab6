import { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { transactionDetail } from "../../helpers"
import { payinModule } from "../../../../utils"

export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  const query = req.scope.resolve(ContainerRegistrationKeys.QUERY)
  const { data: orders } = await query.graph({
    entity: "order",
    fields: ["id", "payment_collections.id"],
    filters: { id: req.params.order_id },
  })
  const collectionIds = ((orders[0]?.payment_collections ?? []) as ({ id: string } | null)[])
    .filter((c): c is { id: string } => Boolean(c))
    .map((c) => c.id)
  const payin = payinModule(req)
  const [byOrder, byCollection] = await Promise.all([
    payin.queries.list({ orderId: req.params.order_id, limit: 50 }),
    collectionIds.length ? payin.queries.list({ paymentCollectionIds: collectionIds, limit: 50 }) : { rows: [], count: 0 },
  ])
  const seen = new Set<string>()
  const rows = [...byOrder.rows, ...byCollection.rows]
    .filter((r) => (seen.has(r.id) ? false : (seen.add(r.id), true)))
    .sort((a, b) => new Date(b.created_at).getTime() - new Date(a.created_at).getTime())
  res.json({ transactions: rows.map(transactionDetail) })
}
