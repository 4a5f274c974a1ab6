import { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { z } from "zod"
import { LEDGER_STATUSES } from "../../../../status"
import { parseOr400, payinModule, transactionRow } from "../helpers"

const list = (what: string, allowed?: readonly string[]) =>
  z
    .preprocess((v) => (Array.isArray(v) ? v.join(",") : v), z.string())
    .transform((v) => v.split(",").map((s) => s.trim()).filter(Boolean))
    .pipe(
      z.array(
        allowed
          ? z.enum(allowed as [string, ...string[]], { error: `${what} must be one of: ${allowed.join(", ")}` })
          : z.string().regex(/^[a-z0-9_]{1,64}$/, { message: `${what} entries are flag names such as late_payment` })
      )
    )
    .optional()

const transactionsQuerySchema = z
  .object({
    status: list("status", LEDGER_STATUSES),
    flag: list("flag"),
    has_flags: z.enum(["true", "false"], { error: "has_flags must be true or false" }).optional(),
    provider_id: z.string().max(64).optional(),
    order_id: z.string().max(64).optional(),
    q: z.string().trim().max(100).optional(),
    limit: z.coerce.number({ error: "limit must be a number" }).int().min(1).max(100).default(20),
    offset: z.coerce.number({ error: "offset must be a number" }).int().min(0).default(0),
  })
  .strict()

/** GET /admin/payin/transactions: the ledger, newest first, filtered. */
export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  const query = parseOr400(res, transactionsQuerySchema, req.query)
  if (!query) return
  const { rows, count } = await payinModule(req).queries.list({
    status: query.status,
    flags: query.flag,
    hasFlags: query.has_flags === "true",
    providerId: query.provider_id,
    orderId: query.order_id,
    q: query.q || undefined,
    limit: query.limit,
    offset: query.offset,
  })
  res.json({ transactions: rows.map(transactionRow), count, limit: query.limit, offset: query.offset })
}
