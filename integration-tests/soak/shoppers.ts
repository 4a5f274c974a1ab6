// Shoppers: each buys through Medusa's store API over HTTP like a storefront (cart → pay-in
// session → complete), its requests alternating between the two servers, then makes something
// happen at the service through the sandbox's control API. A seeded stream per shopper decides
// the kind of each checkout and every wait. What the shopper did and what the service answered
// is kept as the service's side of the audit (a pay-in's moves, with the amount after each).
import { request } from "undici"
import type { Transaction } from "../../src/client/schemas"
import { Storefront } from "../support/storefront"
import { Prng } from "./prng"
import type { Topology } from "./topology"

export const CHECKOUT_KINDS = ["paid", "underpaid", "overpaid", "never_paid", "paid_twice", "disputed", "recalculated", "paid_late"] as const
export type CheckoutKind = (typeof CHECKOUT_KINDS)[number]

/** How often each kind is chosen (relative). */
const WEIGHTS: Record<CheckoutKind, number> = {
  paid: 30,
  underpaid: 10,
  overpaid: 10,
  never_paid: 10,
  paid_twice: 10,
  disputed: 10,
  recalculated: 10,
  paid_late: 10,
}
/** Kinds whose money may arrive before the shopper completes the cart (the webhook completes it). */
const MAY_PAY_FIRST: readonly CheckoutKind[] = ["paid", "underpaid", "overpaid", "paid_twice"]

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
          retry = res.statusCode >= 500 || res.statusCode === 409
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

  /** A control API call; the answer's pay-in recorded as the service's move. */
  const act = async (c: Checkout, action: string, path: string, body?: unknown) => {
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
    }
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
      const c: Checkout = { shopper: s, index, kind, payFirst: MAY_PAY_FIRST.includes(kind) && prng.chance(0.25), startedAt: Date.now(), moves: [] }
      checkouts.push(c)
      try {
        c.cartId = await shop.cart()
        const session = await sessionOf(shop, c.cartId, prng)
        c.sessionId = session.id as string
        c.payinId = sandbox.core.store.getByExternalId(c.sessionId)?.id
        if (!c.payinId) throw new Error(`no pay-in at the service for session ${c.sessionId}`)
        if (c.payFirst) await serviceMoves(c, prng)
        await sleep(prng.int(100, 1_500))
        const completed = await shop.complete(c.cartId)
        c.orderId = completed.data?.order?.id
        if (!c.orderId) throw new Error(`complete: ${completed.status} ${JSON.stringify(completed.data).slice(0, 300)}`)
        if (!c.payFirst) {
          await sleep(prng.int(500, 5_000))
          await serviceMoves(c, prng)
        }
      } catch (error: any) {
        c.aborted = String(error?.message ?? error).slice(0, 500)
        await sleep(1_000)
      }
      c.endedAt = Date.now()
      await sleep(prng.int(0, 1_000))
    }
  }

  const progress = setInterval(() => {
    const placed = checkouts.filter((c) => c.orderId).length
    log(`${checkouts.length} checkouts begun, ${placed} orders placed, ${checkouts.filter((c) => c.aborted).length} aborted`)
  }, 30_000)
  try {
    await Promise.all(Array.from({ length: shoppers }, (_, s) => shopper(s)))
  } finally {
    clearInterval(progress)
  }
  return { checkouts, answers, serverErrors }
}
