import { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { encodeCursor } from "../../../../modules/payin/ledger/cursor"
import { transactionRow } from "../helpers"
import { parseOr400, payinModule } from "../../../utils"
import { transactionsQuerySchema } from "./validators"

/**
 * GET /admin/payin/transactions: the ledger, newest first, filtered; one page after `cursor`
 * (keyset, what the admin uses) or `offset`. `count` is exact up to 10,000 matches and
 * PostgreSQL's estimate above (`count_is_estimate`; `count_is_lower_bound` when it is "at least").
 */
export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  const query = parseOr400(res, transactionsQuerySchema, req.query)
  if (!query) return
  const page = await payinModule(req).queries.list({
    status: query.status,
    flags: query.flag,
    hasFlags: query.has_flags === "true",
    providerId: query.provider_id,
    orderId: query.order_id,
    q: query.q || undefined,
    limit: query.limit,
    offset: query.offset,
    cursor: query.cursor ?? null,
  })
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
