import { randomBytes } from "crypto"
import type { HttpBindings } from "@hono/node-server"
import { getConnInfo } from "@hono/node-server/conninfo"
import { Hono, type Context } from "hono"
import type { ContentfulStatusCode } from "hono/utils/http-status"
import { z } from "zod"
import {
  PayinRequestSchema,
  PayOutRequestSchema,
  type ErrorBody,
} from "../client/schemas"
import { bankList, currencyList, findCurrency } from "./catalog"
import type { SandboxCore } from "./core"
import { faultRouteOf, FaultListSchema } from "./faults"
import { MerchantPatchSchema, publicMerchant } from "./merchant"
import { NextPayInBodySchema } from "./next-payin"
import { convertCents, formatCents, parseRate } from "./money"
import { contentSecurityPolicy, pickLocale, renderMessagePage, renderPaymentPage, texts } from "./page"
import type { ApplyPatch, TxRecord } from "./store"
import { isAction } from "./transitions"
import { AdvanceBodySchema, DisputeBodySchema, PayBodySchema, RecalculateBodySchema, RepeatBodySchema, amountCents } from "./control-bodies"

type Env = { Bindings: HttpBindings }
type Ctx = Context<Env>

export interface FieldError {
  field: string
  message: string
}

function errorResponse(c: Ctx, status: number, code: string, message: string, extra?: Record<string, unknown>): Response {
  const body: ErrorBody = { statusCode: status, code, message, ...extra }
  return c.json(body, status as ContentfulStatusCode)
}

function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    field: issue.path.length > 0 ? issue.path.map(String).join(".") : "(body)",
    message: issue.message,
  }))
}

/** Parses the JSON body with `schema`; an empty body parses as undefined. */
async function parseBody<S extends z.ZodType>(
  c: Ctx,
  schema: S
): Promise<{ ok: true; data: z.output<S> } | { ok: false; response: Response }> {
  const text = await c.req.text()
  let value: unknown = undefined
  if (text.trim() !== "") {
    try {
      value = JSON.parse(text)
    } catch {
      return {
        ok: false,
        response: errorResponse(c, 400, "VALIDATION_ERROR", "request body is not valid JSON", {
          errors: [{ field: "(body)", message: "invalid JSON" }],
        }),
      }
    }
  }
  const parsed = schema.safeParse(value)
  if (!parsed.success) {
    const errors = fieldErrors(parsed.error)
    return {
      ok: false,
      response: errorResponse(
        c,
        400,
        "VALIDATION_ERROR",
        `invalid request: ${errors.map((e) => `${e.field}: ${e.message}`).join("; ")}`,
        { errors }
      ),
    }
  }
  return { ok: true, data: parsed.data }
}


export interface AppContext {
  core: SandboxCore
  /** Waits used by delay faults; cancelled when the sandbox closes. */
  sleep(ms: number): Promise<void>
}

export function createApp({ core, sleep }: AppContext): Hono<Env> {
  const app = new Hono<Env>()

  app.onError((err, c) => errorResponse(c, 500, "INTERNAL_ERROR", err instanceof Error ? err.message : "internal error"))
  app.notFound((c) => errorResponse(c, 404, "NOT_FOUND", `no route ${c.req.method} ${c.req.path}`))

  // Expiry is applied lazily before anything reads state (plus a periodic sweep, see index.ts).
  app.use("*", async (c, next) => {
    core.sweep()
    await next()
  })

  // -------------------------------------------------------------------------------------------
  // Service API: faults, then API key, then IP whitelist.
  // -------------------------------------------------------------------------------------------
  app.use("/payment/*", async (c, next) => {
    const fault = core.faults.take(faultRouteOf(c.req.method, c.req.path))
    if (fault) {
      if (fault.delayMs) await sleep(fault.delayMs)
      if (fault.reset) {
        c.env.incoming.socket.destroy()
        return c.body(null, 500)
      }
      if (fault.status !== undefined) {
        return errorResponse(c, fault.status, fault.code ?? "SANDBOX_FAULT", "fault injected by the sandbox")
      }
    }
    if (!core.checkApiKey(c.req.header("x-api-key"))) {
      return errorResponse(c, 401, "INVALID_API_KEY", "missing or invalid x-api-key")
    }
    const remote = getConnInfo(c).remote.address
    if (!core.allowsAddress(remote)) {
      return errorResponse(c, 403, "MERCHANT_IP_NOT_WHITELISTED", `address ${remote ?? "unknown"} is not whitelisted`)
    }
    await next()
  })

  app.post("/payment/trading/pay-in", async (c) => {
    const parsed = await parseBody(c, PayinRequestSchema)
    if (!parsed.ok) return parsed.response
    const result = core.createPayIn(parsed.data)
    if (!result.ok) {
      const status = result.code === "VALIDATION_ERROR" ? 400 : result.code === "DUPLICATE_EXTERNAL_ID" ? 409 : 422
      return errorResponse(c, status, result.code, result.message, "errors" in result ? { errors: result.errors } : undefined)
    }
    return c.json(core.view(result.record), 201)
  })

  app.get("/payment/trading/banks", (c) => c.json(bankList()))
  app.get("/payment/trading/currency", (c) => c.json(currencyList()))

  /** A lookup's answer, logged once it was handed to the merchant's connection (not when the merchant had hung up, e.g. past its deadline). */
  const lookedUp = (c: Ctx, record: TxRecord, by: "id" | "external") => {
    const tx = core.view(record)
    const outgoing = c.env?.outgoing
    if (outgoing) outgoing.once("finish", () => core.lookups.record(tx, by, core.clock.now()))
    else core.lookups.record(tx, by, core.clock.now())
    return c.json(tx)
  }

  app.get("/payment/trading/external/:id", (c) => {
    const record = core.store.getByExternalId(c.req.param("id"))
    if (!record) return errorResponse(c, 404, "TRANSACTION_NOT_FOUND", "no transaction with this externalTransactionId")
    return lookedUp(c, record, "external")
  })

  app.get("/payment/trading/:id", (c) => {
    const record = core.store.get(c.req.param("id"))
    if (!record) return errorResponse(c, 404, "TRANSACTION_NOT_FOUND", "no transaction with this id")
    return lookedUp(c, record, "id")
  })

  app.post("/payment/trading/pay-out", async (c) => {
    const parsed = await parseBody(c, PayOutRequestSchema)
    if (!parsed.ok) return parsed.response
    return c.json(core.createPayOut(parsed.data), 201)
  })

  // -------------------------------------------------------------------------------------------
  // Control API (no key, no whitelist).
  // -------------------------------------------------------------------------------------------
  app.get("/_sandbox/health", (c) => c.json({ ok: true }))

  app.get("/_sandbox/transactions", (c) => c.json(core.store.all().map((r) => core.view(r))))

  app.get("/_sandbox/transactions/:id", (c) => {
    const record = core.store.get(c.req.param("id"))
    if (!record) return errorResponse(c, 404, "TRANSACTION_NOT_FOUND", "no transaction with this id")
    return c.json(core.view(record))
  })

  app.get("/_sandbox/transactions/:id/receipt", (c) => {
    const record = core.store.get(c.req.param("id"))
    if (!record) return errorResponse(c, 404, "TRANSACTION_NOT_FOUND", "no transaction with this id")
    const party = c.req.query("party") === "trader" ? "trader" : "merchant"
    return c.text(
      `Sandbox payment receipt (${party})\ntransaction: ${record.id}\namount: ${formatCents(record.cents)} ${record.fiatCurrency}\nbank: ${record.bank}\n`
    )
  })

  app.post("/_sandbox/transactions/:id/:action", async (c) => {
    const action = c.req.param("action")
    if (action !== "webhook" && !isAction(action)) {
      return errorResponse(c, 404, "NOT_FOUND", `unknown action "${action}"`)
    }
    const record = core.store.get(c.req.param("id"))
    if (!record) return errorResponse(c, 404, "TRANSACTION_NOT_FOUND", "no transaction with this id")

    if (action === "webhook") {
      const parsed = await parseBody(c, RepeatBodySchema)
      if (!parsed.ok) return parsed.response
      const repeat = parsed.data?.repeat ?? 1
      if (!core.repeatWebhook(record, repeat)) {
        return errorResponse(c, 409, "WEBHOOK_URL_NOT_CONFIGURED", "the merchant has no webhook URL")
      }
      return c.json({ queued: repeat, transaction: core.view(record) }, 202)
    }

    let patch: ApplyPatch = {}
    if (action === "dispute" || action === "checking") {
      const parsed = await parseBody(c, DisputeBodySchema)
      if (!parsed.ok) return parsed.response
      const party = action === "dispute" ? "merchant" : "trader"
      const checkUrl = parsed.data?.checkUrl ?? `${core.publicUrl}/_sandbox/transactions/${record.id}/receipt?party=${party}`
      const cents = parsed.data?.fiatAmount !== undefined ? amountCents(parsed.data.fiatAmount) : record.cents
      patch =
        action === "dispute"
          ? { disputeMerchantCheckUrl: checkUrl, disputeMerchantCents: cents }
          : { disputeTraderCheckUrl: checkUrl, disputeTraderCents: cents }
    } else if (action === "pay") {
      // the transfer arrived as another amount or in another currency (the shopper's bank converted it)
      const parsed = await parseBody(c, PayBodySchema)
      if (!parsed.ok) return parsed.response
      const code = parsed.data?.fiatCurrency?.toUpperCase()
      const currency = code === undefined ? undefined : findCurrency(code)
      if (code !== undefined && !currency) {
        return errorResponse(c, 400, "VALIDATION_ERROR", `fiatCurrency ${code} is not served`, {
          errors: [{ field: "fiatCurrency", message: "unsupported currency (see GET /payment/trading/currency)" }],
        })
      }
      let cents = parsed.data?.fiatAmount !== undefined ? amountCents(parsed.data.fiatAmount) : undefined
      if (cents !== undefined && cents <= 0) {
        return errorResponse(c, 400, "VALIDATION_ERROR", "fiatAmount must be positive", {
          errors: [{ field: "fiatAmount", message: "must be positive" }],
        })
      }
      if (currency && currency.fiatCurrency !== record.fiatCurrency) {
        cents ??= convertCents(record.cents, parseRate(record.currencyRate), parseRate(currency.rate))
        patch = { cents, currency: { fiatCurrency: currency.fiatCurrency, rate: currency.rate } }
      } else if (cents !== undefined) patch = { cents }
    } else if (action === "recalculate") {
      const parsed = await parseBody(c, RecalculateBodySchema)
      if (!parsed.ok) return parsed.response
      const cents = amountCents(parsed.data.fiatAmount)
      if (cents <= 0) {
        return errorResponse(c, 400, "VALIDATION_ERROR", "fiatAmount must be positive", {
          errors: [{ field: "fiatAmount", message: "must be positive" }],
        })
      }
      patch = { cents }
    }
    const result = core.act(record, action, patch)
    if (!result.ok) {
      return errorResponse(c, 409, result.code, result.message, { status: record.status, action })
    }
    return c.json(core.view(result.record))
  })

  app.get("/_sandbox/webhooks", (c) => c.json(core.webhooks.log()))
  app.delete("/_sandbox/webhooks", (c) => {
    core.webhooks.clearLog()
    return c.json([])
  })

  app.get("/_sandbox/lookups", (c) => c.json(core.lookups.list()))
  app.delete("/_sandbox/lookups", (c) => {
    core.lookups.clear()
    return c.json([])
  })

  app.get("/_sandbox/merchant", (c) => c.json(publicMerchant(core.merchant)))
  app.put("/_sandbox/merchant", async (c) => {
    const parsed = await parseBody(c, MerchantPatchSchema)
    if (!parsed.ok) return parsed.response
    return c.json(publicMerchant(core.updateMerchant(parsed.data)))
  })

  app.get("/_sandbox/faults", (c) => c.json({ faults: core.faults.list() }))
  app.put("/_sandbox/faults", async (c) => {
    const parsed = await parseBody(c, FaultListSchema)
    if (!parsed.ok) return parsed.response
    core.faults.set(parsed.data)
    return c.json({ faults: core.faults.list() })
  })
  app.delete("/_sandbox/faults", (c) => {
    core.faults.clear()
    return c.json({ faults: [] })
  })

  const clockView = () => ({ now: new Date(core.clock.now()).toISOString(), offsetMs: core.clock.offsetMs })
  app.get("/_sandbox/clock", (c) => c.json(clockView()))
  app.post("/_sandbox/clock/advance", async (c) => {
    const parsed = await parseBody(c, AdvanceBodySchema)
    if (!parsed.ok) return parsed.response
    core.advanceClock(parsed.data.seconds)
    return c.json(clockView())
  })

  const nextPayInView = () => ({ pending: core.nextPayIns.list() })
  app.get("/_sandbox/next-payin", (c) => c.json(nextPayInView()))
  app.post("/_sandbox/next-payin", async (c) => {
    const parsed = await parseBody(c, NextPayInBodySchema)
    if (!parsed.ok) return parsed.response
    core.nextPayIns.add(parsed.data)
    return c.json(nextPayInView())
  })
  app.delete("/_sandbox/next-payin", (c) => {
    core.nextPayIns.clear()
    return c.json(nextPayInView())
  })

  app.get("/_sandbox/payouts", (c) => c.json([...core.payouts.values()]))

  app.post("/_sandbox/reset", (c) => {
    core.reset()
    return c.json({ ok: true })
  })

  // -------------------------------------------------------------------------------------------
  // Hosted Payment Page.
  // -------------------------------------------------------------------------------------------
  const html = (c: Ctx, body: string, nonce: string, status = 200) => {
    c.header("content-security-policy", contentSecurityPolicy(nonce))
    c.header("cache-control", "no-store")
    c.header("x-content-type-options", "nosniff")
    c.header("referrer-policy", "no-referrer")
    return c.html(body, status as ContentfulStatusCode)
  }
  const nonce = () => randomBytes(12).toString("base64")

  const successUrl = (r: TxRecord) =>
    r.paymentPageConfig?.success_redirect ?? core.merchant.successUrl ?? `${core.publicUrl}/pay/${r.id}/success`
  const failureUrl = (r: TxRecord) =>
    r.paymentPageConfig?.error_redirect ?? core.merchant.failureUrl ?? `${core.publicUrl}/pay/${r.id}/failure`
  const supportLink = (r: TxRecord) => r.paymentPageConfig?.supportLink ?? core.merchant.supportLink ?? `${core.publicUrl}/pay/support`
  const localeOf = (r: TxRecord) => pickLocale(r.paymentPageConfig?.locale)
  /** Where the shopper goes after acting on the page, by the state the transaction is in. */
  const destination = (r: TxRecord) =>
    r.status === "closed" ? successUrl(r) : r.status === "canceled" ? failureUrl(r) : `${core.publicUrl}/pay/${r.id}`

  const notFoundPage = (c: Ctx) => {
    const locale = pickLocale(c.req.query("locale"))
    const n = nonce()
    return html(c, renderMessagePage(locale, texts(locale).notFound, texts(locale).notFound, n), n, 404)
  }

  app.get("/pay/support", (c) => {
    const locale = pickLocale(c.req.query("locale"))
    const n = nonce()
    return html(c, renderMessagePage(locale, texts(locale).support, texts(locale).supportPage, n), n)
  })

  app.get("/pay/:id", (c) => {
    const record = core.store.get(c.req.param("id"))
    if (!record) return notFoundPage(c)
    const n = nonce()
    const page = renderPaymentPage({
      record,
      locale: localeOf(record),
      secondsLeft: Math.max(0, (record.expiresAt - core.clock.now()) / 1000),
      supportLink: supportLink(record),
      successUrl: successUrl(record),
      failureUrl: failureUrl(record),
      pagePath: `/pay/${record.id}`,
      nonce: n,
    })
    return html(c, page, n)
  })

  app.post("/pay/:id/paid", (c) => {
    const record = core.store.get(c.req.param("id"))
    if (!record) return notFoundPage(c)
    if (record.status === "active") core.act(record, "pay")
    return c.redirect(destination(record), 303)
  })

  app.post("/pay/:id/cancel", (c) => {
    const record = core.store.get(c.req.param("id"))
    if (!record) return notFoundPage(c)
    if (record.status === "active") core.act(record, "cancel")
    return c.redirect(destination(record), 303)
  })

  for (const outcome of ["success", "failure"] as const) {
    app.get(`/pay/:id/${outcome}`, (c) => {
      const record = core.store.get(c.req.param("id"))
      if (!record) return notFoundPage(c)
      const locale = localeOf(record)
      const t = texts(locale)
      const n = nonce()
      const message = outcome === "success" ? t.resultSuccess : t.resultFailure
      return html(c, renderMessagePage(locale, t.status[record.status], message, n), n)
    })
  }

  return app
}
