import { z } from "zod"
import { StorefrontDataSchema } from "../../../providers/payin/storefront-data"

/** Query strings of the store routes: strict (an unknown parameter is a 400 naming it). */

const id = (name: string) =>
  z
    .string({ error: `${name} must be a single id` })
    .trim()
    .min(1, { message: `${name} must not be empty` })
    .max(100, { message: `${name} is too long` })

function exactlyOne<K extends string>(a: K, b: K) {
  return (query: Partial<Record<K, unknown>>, ctx: z.RefinementCtx) => {
    const given = [a, b].filter((k) => query[k] !== undefined)
    if (given.length === 1) return
    const message = given.length ? `give only one of ${a} or ${b}` : `${a} or ${b} is required`
    for (const path of [a, b]) {
      ctx.addIssue({ code: "custom", path: [path], message })
    }
  }
}

export const banksQuerySchema = z
  .object({
    cart_id: id("cart_id").optional(),
    currency_code: z
      .string({ error: "currency_code must be a single 3-letter code" })
      .trim()
      .regex(/^[A-Za-z]{3}$/, { message: "currency_code must be a 3-letter ISO 4217 code such as rub" })
      .transform((v) => v.toUpperCase())
      .optional(),
    provider_id: id("provider_id").optional(),
  })
  .strict()
  .superRefine(exactlyOne("cart_id", "currency_code"))
export type BanksQuery = z.infer<typeof banksQuerySchema>

/** The longest a status request may be held (below the 30 s many proxies allow an idle answer). */
export const MAX_STATUS_WAIT_SECONDS = 25

export const statusQuerySchema = z
  .object({
    cart_id: id("cart_id").optional(),
    order_id: id("order_id").optional(),
    wait: z
      .string({ error: `wait must be a single number of seconds (0–${MAX_STATUS_WAIT_SECONDS})` })
      .regex(/^\d{1,2}(\.\d{1,3})?$/, { message: `wait must be a number of seconds from 0 to ${MAX_STATUS_WAIT_SECONDS}, such as 25` })
      .transform(Number)
      .refine((n) => n <= MAX_STATUS_WAIT_SECONDS, { message: `wait must be at most ${MAX_STATUS_WAIT_SECONDS} seconds` })
      .optional(),
    since: z
      .string({ error: "since must be a single view_tag" })
      .regex(/^[A-Za-z0-9_-]{1,64}$/, { message: "since must be the view_tag of an earlier answer" })
      .optional(),
  })
  .strict()
  .superRefine(exactlyOne("cart_id", "order_id"))
  .superRefine((query, ctx) => {
    // a wait needs what "changed" is measured against, and a tag alone asks for nothing
    if ((query.wait === undefined) === (query.since === undefined)) return
    const missing = query.wait === undefined ? "wait" : "since"
    ctx.addIssue({ code: "custom", path: [missing], message: `${missing} is required with ${missing === "wait" ? "since" : "wait"}` })
  })
export type StatusQuery = z.infer<typeof statusQuerySchema>

/** Bank, method, locale and return URLs are checked against the instance's settings by the provider. */
export const payAgainBodySchema = StorefrontDataSchema.extend({ order_id: id("order_id") }).strict()
export type PayAgainBody = z.infer<typeof payAgainBodySchema>
