// Shoppers: each buys through Medusa's store API over HTTP like a storefront (cart → pay-in
// session → complete), its requests alternating between the two servers, then makes something
// happen at the service through the sandbox's control API. A seeded stream per shopper decides
// the kind of each checkout and every wait. What the shopper did and what the service answered
// is kept as the service's side of the audit (a pay-in's moves, with the amount after each).
import { request } from "undici"
import type { Transaction } from "../../src/client/schemas"
import { Storefront } from "../support/storefront"
import { adminApi } from "./merchant"
import { Prng } from "./prng"
import type { Topology } from "./topology"

export const CHECKOUT_KINDS = [
  "paid",
  "underpaid",
  "overpaid",
  "never_paid",
  "paid_twice",
  "disputed",
  "recalculated",
  "paid_late",
  "pay_again",
  "cart_changed",
  "other_currency",
] as const
export type CheckoutKind = (typeof CHECKOUT_KINDS)[number]

/** How often each kind is chosen (relative, in %). */
export const WEIGHTS: Record<CheckoutKind, number> = {
  paid: 22,
  underpaid: 8,
  overpaid: 8,
  never_paid: 9,
  paid_twice: 8,
  disputed: 9,
  recalculated: 9,
  paid_late: 8,
  pay_again: 7,
  cart_changed: 6,
  other_currency: 6,
}
/** Kinds whose money may arrive before the shopper completes the cart (the webhook completes it, or, another currency, not). */
const MAY_PAY_FIRST: readonly CheckoutKind[] = ["paid", "underpaid", "overpaid", "paid_twice", "other_currency"]
/** The currency an `other_currency` shopper's bank converts the transfer into (the demo store sells in RUB). */
export const OTHER_CURRENCY = "USD"

/** One call of the control API and the service's answer: the pay-in's status and amount after it. */
export type ServiceMove = {
  action: string
  /** When the call was sent (its callback may reach the store before the answer reaches the shopper). */
  sentAt?: number
  at: number
  http: number
  status: string | null
  fiatAmount: string | null
  fiatCurrency: string | null
}

export type Checkout = {
  shopper: number
  index: number
  kind: CheckoutKind
  payFirst: boolean
  startedAt: number
  endedAt?: number
  cartId?: string
  sessionId?: string
  payinId?: string
  orderId?: string
  /** Why the checkout stopped before its service moves (a store API refusal after retries). */
  aborted?: string
  moves: ServiceMove[]
  /** The checkout's later pay-ins, each with its own moves: pay again's new one, a changed cart's new session's. */
  also: { payinId: string; sessionId: string; why: "pay_again" | "new_session"; moves: ServiceMove[] }[]
  /** What the checkout's kind did beyond the moves (pay again's answers, the cart changed, paid in the end or not). */
  notes: string[]
}

export type StoreAnswers = Record<string, number>
/** A 5xx answer of the store API: when, to what (ids left out), and the start of its body. */
export type ServerError = { at: number; request: string; status: number; body: string }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * The store API as a storefront behind a load balancer reaches it: each request to the next server
 * in turn (the other one while a server is down), retried with backoff on a network error, a 5xx
 * or a 409 (a cart completion under way), for up to `budgetMs`.
 */
function storeApi(topology: Topology, answers: StoreAnswers, serverErrors: ServerError[], start: number, budgetMs = 90_000) {
  let turn = start
  const send = async (method: "GET" | "POST", url: string, body?: unknown, config?: unknown) => {
    const headers: Record<string, string> = { ...((config as { headers?: Record<string, string> })?.headers ?? {}) }
    if (body !== undefined) headers["content-type"] = "application/json"
    const deadline = Date.now() + budgetMs
    let last = ""
    for (let attempt = 0; ; attempt++) {
      const mine = turn++ % 2 === 0 ? "serverA" : "serverB"
      const base = topology.serverUrl(mine) ?? topology.serverUrl(mine === "serverA" ? "serverB" : "serverA")
      let retry = true
      if (base) {
        try {
          const res = await request(`${base}${url}`, {
            method,
            headers,
            body: body === undefined ? undefined : JSON.stringify(body),
            headersTimeout: 30_000,
            bodyTimeout: 30_000,
          })
          const text = await res.body.text()
          answers[String(res.statusCode)] = (answers[String(res.statusCode)] ?? 0) + 1
          let data: any = null
          try {
            data = text ? JSON.parse(text) : null
          } catch {
            data = text
          }
          if (res.statusCode < 400) return { status: res.statusCode, data }
          if (res.statusCode >= 500 && serverErrors.length < 500) {
            serverErrors.push({ at: Date.now(), request: `${method} ${url.replace(/\/[a-z_]+_[0-9A-Z]{20,}/g, "/:id")}`, status: res.statusCode, body: text.slice(0, 300) })
          }
          last = `${res.statusCode} ${text.slice(0, 300)}`
          // a 409 of the plugin's routes is an answer (pay again refused), not a completion under way
          retry = res.statusCode >= 500 || (res.statusCode === 409 && !url.startsWith("/store/payin/"))
          if (!retry || Date.now() > deadline) {
            throw Object.assign(new Error(`${method} ${url}: ${last}`), { response: { status: res.statusCode, data } })
          }
        } catch (error: any) {
          if (error?.response) throw error
          answers.network = (answers.network ?? 0) + 1
          last = String(error?.message ?? error)
        }
      }
      if (Date.now() > deadline) throw new Error(`${method} ${url}: no answer within ${budgetMs} ms (last: ${last})`)
      await sleep(Math.min(4_000, 250 * 2 ** attempt))
    }
  }
  return {
    get: (url: string, config?: unknown) => send("GET", url, undefined, config),
    post: (url: string, body?: unknown, config?: unknown) => send("POST", url, body, config),
  }
}

const cents = (amount: string) => Math.round(Number(amount) * 100)
const amountOf = (c: number) => (c / 100).toFixed(2)

export type ShopperRun = { checkouts: Checkout[]; answers: StoreAnswers; serverErrors: ServerError[] }

/** Runs `shoppers` shoppers at once until `endAt` (a checkout under way then is finished). */
export async function runShoppers(topology: Topology, root: Prng, shoppers: number, endAt: number, log: (line: string) => void): Promise<ShopperRun> {
  const checkouts: Checkout[] = []
  const answers: StoreAnswers = {}
  const serverErrors: ServerError[] = []
  const { sandbox } = topology

  /** A control API call; the answer's pay-in recorded as the service's move (of the checkout's pay-in, or of a later one). */
  const act = async (c: { payinId?: string; moves: ServiceMove[] }, action: string, path: string, body?: unknown) => {
    const sentAt = Date.now()
    const res = await request(`${sandbox.url}/_sandbox/transactions/${c.payinId}${path}`, {
      method: "POST",
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.body.text()
    const data = text ? JSON.parse(text) : null
    const tx: Partial<Transaction> | undefined = res.statusCode === 200 ? data : data?.transaction
    c.moves.push({
      action,
      sentAt,
      at: Date.now(),
      http: res.statusCode,
      status: tx?.status ?? data?.status ?? null,
      fiatAmount: tx?.fiatAmount ?? null,
      fiatCurrency: tx?.fiatCurrency ?? null,
    })
    return res.statusCode
  }

  /** What happens at the service for this checkout's kind. */
  const serviceMoves = async (c: Checkout, prng: Prng) => {
    const asked = cents(sandbox.transaction(c.payinId!)!.fiatAmount)
    const think = () => sleep(prng.int(200, 3_000))
    switch (c.kind) {
      case "paid":
        await act(c, "pay", "/pay")
        break
      case "underpaid":
      case "overpaid": {
        // the service's only way to close for another amount: a dispute recalculated, then closed
        const delta = prng.int(100, Math.floor(asked / 2))
        await act(c, "dispute", "/dispute")
        await think()
        await act(c, "recalculate", "/recalculate", { fiatAmount: amountOf(c.kind === "underpaid" ? asked - delta : asked + delta) })
        await think()
        await act(c, "close", "/close")
        break
      }
      case "never_paid":
        await act(c, "expire", "/expire")
        break
      case "paid_twice":
        // a second transfer into the same pay-in is not possible at the sandbox: the paid callback
        // is sent again instead, now and after a while
        await act(c, "pay", "/pay")
        await act(c, "webhook", "/webhook", { repeat: prng.int(1, 3) })
        await think()
        await act(c, "webhook", "/webhook", { repeat: 1 })
        break
      case "disputed":
        await act(c, "pay", "/pay")
        await think()
        await act(c, "dispute", "/dispute")
        if (prng.chance(0.5)) {
          await think()
          await act(c, "checking", "/checking")
        }
        if (prng.chance(0.5)) {
          await think()
          await act(c, "close", "/close")
        }
        break
      case "recalculated":
        // after the payment: to less (Medusa keeps what it captured)
        await act(c, "pay", "/pay")
        await think()
        await act(c, "dispute", "/dispute")
        await act(c, "recalculate", "/recalculate", { fiatAmount: amountOf(asked - prng.int(100, Math.floor(asked / 2))) })
        if (prng.chance(0.5)) {
          await think()
          await act(c, "close", "/close")
        }
        break
      case "paid_late":
        // the window ends, then the money arrives (the service reopens it through a dispute)
        await act(c, "expire", "/expire")
        await sleep(prng.int(1_000, 8_000))
        await act(c, "dispute", "/dispute")
        await act(c, "close", "/close")
        break
      case "other_currency":
        // the shopper's bank converted the transfer: the service received dollars for a rouble pay-in
        await act(c, "pay", "/pay", { fiatCurrency: OTHER_CURRENCY })
        break
      case "pay_again":
      case "cart_changed":
        // their own flows (payAgain, cartChanged)
        break
    }
  }

  /**
   * Pay again: the order's pay-in expires unpaid (the store's pay-again setting keeps the order
   * waiting), the shopper asks for new details until the store, once it learned of the expiry,
   * gives a new pay-in, and pays that one; sometimes the old one is paid late as well.
   */
  const payAgain = async (shop: Storefront, c: Checkout, prng: Prng) => {
    await act(c, "expire", "/expire")
    // at most 2 minutes, and no longer than 30 s past the load's end (the drain does not wait on shoppers)
    const deadline = Math.min(Date.now() + 120_000, endAt + 30_000)
    for (let attempt = 0; ; attempt++) {
      await sleep(attempt ? prng.int(2_000, 5_000) : prng.int(500, 2_000))
      const answer = await shop.payAgain({ order_id: c.orderId })
      const newId: string | undefined = answer.data?.payin?.payin_id
      if (answer.status === 200 && newId && newId !== c.payinId) {
        const sessionId = sandbox.transaction(newId)?.extra?.externalTransactionId
        const next = { payinId: newId, sessionId: String(sessionId ?? ""), why: "pay_again" as const, moves: [] as ServiceMove[] }
        c.also.push(next)
        c.notes.push(`pay again: new pay-in after ${attempt + 1} asks`)
        await sleep(prng.int(500, 3_000))
        await act(next, "pay", "/pay")
        if (prng.chance(0.4)) {
          // the shopper had paid the old details too: a late payment into the ended pay-in
          await sleep(prng.int(500, 5_000))
          await act(c, "dispute", "/dispute")
          await act(c, "close", "/close")
          c.notes.push("the old pay-in paid late too")
        }
        return
      }
      // a 503 (payin_busy, payin_store_unavailable) says ask again, as the kit does
      if ((answer.status !== 200 && answer.status !== 503) || Date.now() > deadline) {
        c.notes.push(`pay again: ${answer.status} ${JSON.stringify(answer.data?.code ?? answer.data?.payin?.state ?? "").slice(0, 80)} after ${attempt + 1} asks: gave up`)
        return
      }
    }
  }

  /**
   * A cart changed after its pay-in was shown: an item added (Medusa deletes the session), the old
   * pay-in paid anyway (a stray payment), and, half the time, a new session made, the cart
   * completed and the new pay-in paid.
   */
  const cartChanged = async (shop: Storefront, c: Checkout, prng: Prng) => {
    await shop.addItem(c.cartId!)
    c.notes.push("item added")
    await sleep(prng.int(100, 1_500))
    await act(c, "pay", "/pay")
    if (!prng.chance(0.5)) return
    // the old pay-in's money is stray (its session deleted): the changed cart gets new details all the same
    const session = await sessionOf(shop, c.cartId!, prng)
    const payinId = sandbox.core.store.getByExternalId(session.id)?.id
    if (!payinId) throw new Error(`no pay-in at the service for the new session ${session.id}`)
    const next = { payinId, sessionId: session.id as string, why: "new_session" as const, moves: [] as ServiceMove[] }
    c.also.push(next)
    const completed = await shop.complete(c.cartId!)
    c.orderId = completed.data?.order?.id
    if (!c.orderId) throw new Error(`complete after the cart changed: ${completed.status} ${JSON.stringify(completed.data).slice(0, 300)}`)
    await sleep(prng.int(500, 3_000))
    await act(next, "pay", "/pay")
  }

  /** The pay-in session; "try again in a minute" (the service unavailable) is taken at its word, twice. */
  const sessionOf = async (shop: Storefront, cartId: string, prng: Prng) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await shop.session(cartId, "pp_payin_default")
      } catch (error: any) {
        if (attempt >= 2 || error?.response?.data?.code !== "payin_unavailable") throw error
        await sleep(prng.int(10_000, 30_000))
      }
    }
  }

  const shopper = async (s: number) => {
    const prng = root.fork(`shopper-${s}`)
    const shop = new Storefront(storeApi(topology, answers, serverErrors, s), topology.seed, `SoakShopper/${s}`)
    for (let index = 0; Date.now() < endAt; index++) {
      const kind = prng.weighted(WEIGHTS)
      const c: Checkout = { shopper: s, index, kind, payFirst: MAY_PAY_FIRST.includes(kind) && prng.chance(0.25), startedAt: Date.now(), moves: [], also: [], notes: [] }
      checkouts.push(c)
      try {
        c.cartId = await shop.cart()
        const session = await sessionOf(shop, c.cartId, prng)
        c.sessionId = session.id as string
        c.payinId = sandbox.core.store.getByExternalId(c.sessionId)?.id
        if (!c.payinId) throw new Error(`no pay-in at the service for session ${c.sessionId}`)
        if (kind === "cart_changed") await cartChanged(shop, c, prng)
        else {
          if (c.payFirst) await serviceMoves(c, prng)
          await sleep(prng.int(100, 1_500))
          const completed = await shop.complete(c.cartId)
          c.orderId = completed.data?.order?.id
          if (!c.orderId) throw new Error(`complete: ${completed.status} ${JSON.stringify(completed.data).slice(0, 300)}`)
          if (!c.payFirst) {
            await sleep(prng.int(500, 5_000))
            if (kind === "pay_again") await payAgain(shop, c, prng)
            else await serviceMoves(c, prng)
          }
        }
      } catch (error: any) {
        c.aborted = String(error?.message ?? error).slice(0, 500)
        await sleep(1_000)
      }
      c.endedAt = Date.now()
      await sleep(prng.int(0, 1_000))
    }
  }

  // the store offers pay again (the pay_again checkouts; never_paid's orders then wait out the grace
  // instead of being canceled); every process reads settings at most 5 s old
  const on = await adminApi(topology)("POST", "/admin/payin/settings/default", { payAgain: { enabled: true, graceHours: 1 } })
  if (on.status !== 200) throw new Error(`pay again not switched on: ${on.status} ${JSON.stringify(on.data).slice(0, 300)}`)
  await sleep(6_000)
  log("pay again on (grace 1 h)")

  const progress = setInterval(() => {
    const placed = checkouts.filter((c) => c.orderId).length
    log(`${checkouts.length} checkouts begun, ${placed} orders placed, ${checkouts.filter((c) => c.aborted).length} aborted`)
  }, 30_000)
  try {
    await Promise.all(Array.from({ length: shoppers }, (_, s) => shopper(s)))
  } finally {
    clearInterval(progress)
  }
  const count = (kind: CheckoutKind, test: (c: Checkout) => boolean) => checkouts.filter((c) => c.kind === kind && test(c)).length
  log(
    `kinds: pay_again ${count("pay_again", () => true)} (new pay-in paid ${count("pay_again", (c) => c.also.length > 0)}, the old one paid late too ${count("pay_again", (c) => c.notes.some((n) => n.includes("paid late")))}, gave up ${count("pay_again", (c) => c.notes.some((n) => n.includes("gave up")))}); ` +
      `cart_changed ${count("cart_changed", () => true)} (old pay-in paid ${count("cart_changed", (c) => c.moves.some((m) => m.http === 200))}, new session paid ${count("cart_changed", (c) => c.also.some((a) => a.moves.some((m) => m.http === 200)))}); ` +
      `other_currency ${count("other_currency", () => true)} (paid in ${OTHER_CURRENCY} ${count("other_currency", (c) => c.moves.some((m) => m.http === 200 && m.fiatCurrency === OTHER_CURRENCY))})`
  )
  for (const c of checkouts.filter((c) => c.notes.some((n) => n.includes("gave up")))) log(`pay again of ${c.orderId}: ${c.notes.join("; ")}`)
  return { checkouts, answers, serverErrors }
}
