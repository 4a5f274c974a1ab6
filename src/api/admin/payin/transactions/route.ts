import { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { encodeCursor } from "../../../../modules/payin/ledger/cursor"
import { transactionRow } from "../helpers"
import { BroadSearchOffsetError } from "../../../../modules/payin/ledger/queries"
import { invalid, parseOr400, payinModule } from "../../../utils"
import { transactionsQuerySchema } from "./validators"

export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  const query = parseOr400(res, transactionsQuerySchema, req.query)
  if (!query) return
  const listing = payinModule(req).queries.list({
    status: query.status,
    flags: query.flag,
    hasFlags: query.has_flags === "true",
    providerId: query.provider_id,
    bank: query.bank,
    method: query.method,
    paid: query.paid === undefined ? undefined : query.paid === "true",
    createdFrom: query.created_from,
    createdBefore: query.created_to ? new Date(query.created_to.getTime() + 86_400_000) : undefined,
    orderId: query.order_id,
    q: query.q || undefined,
    limit: query.limit,
    offset: query.offset,
    cursor: query.cursor ?? null,
  })
  const page = await listing.catch((error: unknown) => {
    if (error instanceof BroadSearchOffsetError) return invalid(res, [{ path: "offset", message: error.message }])
    throw error
  })
  if (!page) return
  res.json({
    transactions: page.rows.map(transactionRow),
    count: page.count,
    count_is_estimate: page.countIsEstimate,
    count_is_lower_bound: page.countIsLowerBound,
    limit: query.limit,
    offset: query.offset,
    next_cursor: page.nextCursor ? encodeCursor(page.nextCursor) : null,
  })
}
