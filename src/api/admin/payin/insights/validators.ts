import { z } from "zod"
import { PROVIDER_ID_PATTERN } from "../../../../provider-id"

export const INSIGHTS_MAX_DAYS = 731
const DAY_MS = 86_400_000

const day = (what: string) =>
  z
    .string({ error: `${what} must be a day such as 2026-11-01` })
    .regex(/^\d{4}-\d{2}-\d{2}$/, { message: `${what} must be a day such as 2026-11-01 (UTC)` })
    .refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v), {
      message: `${what} is not a calendar day`,
    })

export const insightsQuerySchema = z
  .object({
    from: day("from").optional(),
    to: day("to").optional(),
    provider_id: z.string().regex(PROVIDER_ID_PATTERN, { message: "provider_id must be a pay-in provider id such as pp_payin_default" }).optional(),
    format: z.enum(["json", "csv"], { error: "format must be json or csv" }).default("json"),
  })
  .strict()
  .transform((q) => {
    const to = q.to ?? new Date().toISOString().slice(0, 10)
    const from = q.from ?? new Date(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS).toISOString().slice(0, 10)
    return { ...q, from, to }
  })
  .refine((q) => q.from <= q.to, { message: "from must not be after to", path: ["to"] })
  .refine((q) => (Date.parse(q.to) - Date.parse(q.from)) / DAY_MS < INSIGHTS_MAX_DAYS, {
    message: `a period of at most ${INSIGHTS_MAX_DAYS} days`,
    path: ["from"],
  })
export type InsightsQuery = z.output<typeof insightsQuerySchema>
