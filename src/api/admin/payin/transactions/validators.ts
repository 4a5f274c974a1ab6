import { z } from "zod"
import { LEDGER_STATUSES } from "../../../../status"
import { decodeCursor } from "../../../../modules/payin/ledger/cursor"
import { MAX_OFFSET } from "../../../../modules/payin/ledger/limits"

/** A comma list (or a repeated parameter) of allowed values, or of flag names. */
export const commaList = (what: string, allowed?: readonly string[]) =>
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

const filters = {
  status: commaList("status", LEDGER_STATUSES),
  flag: commaList("flag"),
  has_flags: z.enum(["true", "false"], { error: "has_flags must be true or false" }).optional(),
  provider_id: z.string().max(64).optional(),
}

/** A UTC day (YYYY-MM-DD): the first instant of it. */
const utcDay = (what: string) =>
  z
    .string({ error: `${what} must be a day such as 2026-11-01` })
    .regex(/^\d{4}-\d{2}-\d{2}$/, { message: `${what} must be a day such as 2026-11-01 (UTC)` })
    .transform((v, ctx) => {
      const at = new Date(`${v}T00:00:00Z`)
      if (Number.isNaN(at.getTime()) || !at.toISOString().startsWith(v)) {
        ctx.addIssue({ code: "custom", message: `${what} is not a calendar day` })
        return z.NEVER
      }
      return at
    })

export const transactionsQuerySchema = z
  .object({
    ...filters,
    bank: z.string().trim().min(1).max(128).optional(),
    method: z.string().trim().min(1).max(64).optional(),
    paid: z.enum(["true", "false"], { error: "paid must be true or false" }).optional(),
    created_from: utcDay("created_from").optional(),
    /** Created on or before this UTC day (the whole day). */
    created_to: utcDay("created_to").optional(),
    order_id: z.string().max(64).optional(),
    q: z.string().trim().max(100).optional(),
    limit: z.coerce.number({ error: "limit must be a number" }).int().min(1).max(100).default(20),
    offset: z.coerce
      .number({ error: "offset must be a number" })
      .int()
      .min(0)
      .max(MAX_OFFSET, { message: `offset is at most ${MAX_OFFSET}: page deeper with cursor (the next_cursor of the page before)` })
      .default(0),
    cursor: z
      .string()
      .transform((value, ctx) => {
        const cursor = decodeCursor(value)
        if (!cursor) {
          ctx.addIssue({ code: "custom", message: "cursor must be a next_cursor this API returned" })
          return z.NEVER
        }
        return cursor
      })
      .optional(),
  })
  .strict()
  .refine((q) => !(q.cursor && q.offset), { message: "use either cursor or offset, not both", path: ["cursor"] })

/** A point in time: an ISO 8601 date (midnight UTC) or date-time with a zone (Z or ±hh:mm). */
const instant = (what: string) =>
  z
    .union([z.iso.date(), z.iso.datetime({ offset: true })], {
      error: `${what} must be an ISO 8601 date (2026-05-01) or date-time with a zone (2026-05-01T00:00:00+03:00)`,
    })
    .transform((v) => new Date(v))

export const exportQuerySchema = z
  .object({
    ...filters,
    from: instant("from").optional(),
    to: instant("to").optional(),
    by: z.enum(["created", "closed"], { error: "by must be created or closed" }).default("created"),
  })
  .strict()
  .refine((q) => !(q.from && q.to && q.from.getTime() >= q.to.getTime()), { message: "from must be before to", path: ["to"] })
