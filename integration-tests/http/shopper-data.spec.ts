// What a shopper can write into a payment session (its `data`, through Medusa's store API) never
// steers the plugin: every key the provider reads is listed in src/api/README.md "What the
// provider reads", with who may set it; a key a shopper may not set is refused (Medusa would store
// it as sent), one the server writes is written over whatever was sent. Driven through the store
// API only, as an attacker would, and asserted on Medusa's own records (payments, orders).
import { readFileSync } from "fs"
import path from "path"
import { PROVIDER_KEYS } from "../../src/providers/payin/storefront-data"
import type { RunningSandbox } from "../../src/sandbox"
import { storeSpec } from "../support/harness"
import { eventually } from "../support/medusa-process"
import { control, payinsOfSession } from "../support/sandbox"
import type { Storefront } from "../support/storefront"

jest.setTimeout(180_000)

const KEY = "shopper-data-key-0123456789"

/** The keys src/api/README.md ("What the provider reads") says a shopper may not send, read from it. */
function refusedKeysOfReadme(): string[] {
  const readme = readFileSync(path.join(__dirname, "..", "..", "src", "api", "README.md"), "utf8")
  const section = readme.slice(readme.indexOf("### What the provider reads"), readme.indexOf("### Rate limits"))
  const keys = (text: string) => [...text.matchAll(/`(\w+)`/g)].map((m) => m[1])
  const table = section.split("\n").filter((line) => line.startsWith("| `") && /\| refused/.test(line))
  const others = /Every other key the provider writes\s+\(([^)]*)\)/.exec(section)?.[1] ?? ""
  return [...table.flatMap((line) => keys(line.split("|")[1])), ...keys(others)]
}
const REFUSED_KEYS = [
  ...refusedKeysOfReadme(),
  // the keys of earlier versions' own control, refused like any other
  "payin_reattach_paid",
  "payin_capture_on_authorize",
  "payin_captured_on_authorize",
]

storeSpec({ key: KEY }, (h) => {
  const { api } = h
  let sandbox: RunningSandbox, shop: Storefront
  beforeEach(() => void ({ sandbox, shop } = h))

  const sql = async (text: string, bindings: unknown[] = []) => (await h.sql(text, bindings)).rows as any[]
  const paymentsOfCollection = async (collectionId: string) =>
    sql("select id, amount, captured_at from payment where payment_collection_id = ? and deleted_at is null", [collectionId])
  const orderOfCart = async (cartId: string) => (await sql("select order_id from order_cart where cart_id = ? and deleted_at is null", [cartId]))[0]?.order_id ?? null
  /** An HTTP error as a plain one (an axios error cannot cross to jest's parent process). */
  const plain = async <T>(send: () => Promise<T>): Promise<T> =>
    send().catch((error: any) => {
      throw new Error(`${error.config?.method} ${error.config?.url}: ${error.response?.status} ${JSON.stringify(error.response?.data)}`)
    })
  const setQuantity = async (cartId: string, quantity: number) => {
    const { data } = await plain<{ data: any }>(() => api.get(`/store/carts/${cartId}`, shop.headers))
    await plain(() => api.post(`/store/carts/${cartId}/line-items/${data.cart.items[0].id}`, { quantity }, shop.headers))
  }
  const createSession = async (collectionId: string, data: Record<string, unknown>) => {
    try {
      const res = await api.post(`/store/payment-collections/${collectionId}/payment-sessions`, { provider_id: "pp_payin_default", data }, shop.headers)
      return { status: res.status, data: res.data }
    } catch (error: any) {
      return { status: error.response.status, data: error.response.data }
    }
  }

  it("issue 32's attack: a shopper naming a stray paid pay-in in a new session gets a 400; no Payment, no order", async () => {
    const cartId = await shop.cart()
    const first = await plain(() => shop.session(cartId, "pp_payin_default"))
    const [payin] = payinsOfSession(sandbox, first.id)
    const ledgerId = first.data.payin_ledger_id as string
    expect(first.amount).toBe(1790)

    // ten units: Medusa deletes the session (the total changed); then 1,790 arrives into the old pay-in
    await setQuantity(cartId, 10)
    await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/pay`)
    await h.deliver()
    const stray = await h.ledger.row({ id: ledgerId })
    expect(stray).toMatchObject({ status: "closed", session_id: first.id, captured_at: null })
    expect(stray.flags.stray_payment).toBeTruthy()

    // the attack: a new session of the 15,200 collection that names the paid pay-in
    const collectionId = await shop.paymentCollection(cartId)
    const attack = await createSession(collectionId, { payin_reattach_paid: ledgerId })
    expect(attack.status).toBe(400)
    expect(attack.data.message).toMatch(/Unknown payment data field\(s\): payin_reattach_paid\. .*\(payin_invalid_data\)$/)

    // the cart cannot complete: no session to pay with, nothing authorized, no order
    const completed = await shop.complete(cartId)
    expect(completed.data.type).not.toBe("order")
    expect(await orderOfCart(cartId)).toBeNull()
    expect(await paymentsOfCollection(collectionId)).toHaveLength(0)
    // the paid pay-in stayed the stray payment it was, attached to nothing new
    expect(await h.ledger.row({ id: ledgerId })).toMatchObject({ session_id: first.id, captured_at: null, reattach_requested_at: null })
  })

  it("a pay-in attached to a session of another amount is never authorized: completion fails, no Payment, no order", async () => {
    const cartId = await shop.cart()
    const first = await plain(() => shop.session(cartId, "pp_payin_default"))
    const [payin] = payinsOfSession(sandbox, first.id)
    await setQuantity(cartId, 10)
    const second = await plain(() => shop.session(cartId, "pp_payin_default"))
    expect(second.amount).toBe(15200)
    await control(sandbox, "POST", `/_sandbox/transactions/${payin.id}/pay`)
    await h.deliver()
    // whatever attached the paid 1,790 pay-in to the 15,200 session (a fault of the store's own code)
    await sql("update payin_transaction set session_id = null where session_id = ?", [second.id])
    await sql("update payin_transaction set session_id = ?, session_deleted_at = null where id = ?", [second.id, first.data.payin_ledger_id])

    const completed = await shop.complete(cartId)
    expect(completed.data.type).not.toBe("order")
    expect(await orderOfCart(cartId)).toBeNull()
    expect(await paymentsOfCollection(second.payment_collection_id)).toHaveLength(0)
  })

  it("the README lists the keys a shopper may not send", () => {
    expect(REFUSED_KEYS).toEqual(expect.arrayContaining(["payin_ledger_id", "payin_refunds", "payin_id", "payin_status", "amount", "error_message"]))
  })

  it.each(REFUSED_KEYS)("%s sent by a shopper is refused with a 400 naming it, and nothing is created", async (key) => {
    const cartId = await shop.cart()
    const collectionId = await shop.paymentCollection(cartId)
    for (const value of ["payintx_forged", { value: "1" }, null]) {
      const answer = await createSession(collectionId, { method: "card", [key]: value })
      expect(answer.status).toBe(400)
      expect(answer.data.message).toContain(`Unknown payment data field(s): ${key}`)
    }
    expect(await h.ledger.rows({ payment_collection_id: collectionId })).toHaveLength(0)
    expect(sandbox.transactions().filter((t) => t.extra?.externalTransactionId?.startsWith("payses_"))).toHaveLength(0)
  })

  it("the provider's own keys of a pay-in of the same collection, as it wrote them, are left out; forged ones are refused", async () => {
    const cartId = await shop.cart()
    const first = await plain(() => shop.session(cartId, "pp_payin_default", { method: "card" }))
    const collectionId = first.payment_collection_id
    const own = Object.fromEntries(Object.entries(first.data as Record<string, unknown>).filter(([k]) => k !== "session_id"))
    // Medusa's own re-creation of a session it deleted sends exactly this; a shopper may copy it: nothing changes
    const again = await createSession(collectionId, own)
    expect(again.status).toBe(200)
    const session = again.data.payment_collection.payment_sessions.find((s: any) => s.provider_id === "pp_payin_default")
    expect(session.data).toMatchObject({ payin_id: first.data.payin_id, payin_ledger_id: first.data.payin_ledger_id, session_id: session.id })
    expect(sandbox.transactions()).toHaveLength(1)
    // the same keys with any value changed, or naming another pay-in, are unknown keys
    for (const forged of [{ payin_id: "forged" }, { payin_ledger_id: "payintx_forged" }, { amount: "1.00", payin_ledger_id: "payintx_forged" }]) {
      const refused = await createSession(collectionId, { ...own, ...forged })
      expect(refused.status).toBe(400)
      expect(refused.data.message).toMatch(/^Unknown payment data field\(s\): .*payin_ledger_id/)
    }
  })

  /** A cart whose pay-in session Medusa deleted (the total changed and changed back): its pay-in live, the copy of its data. */
  const deletedSession = async () => {
    const cartId = await shop.cart()
    const first = await plain(() => shop.session(cartId, "pp_payin_default", { method: "card" }))
    await setQuantity(cartId, 2)
    await setQuantity(cartId, 1)
    const ledgerId = first.data.payin_ledger_id as string
    expect(await h.ledger.row({ id: ledgerId })).toMatchObject({ session_id: first.id, session_deleted_at: expect.anything() })
    const own = Object.fromEntries(Object.entries(first.data as Record<string, unknown>).filter(([k]) => k !== "session_id"))
    return { cartId, first, ledgerId, own, collectionId: first.payment_collection_id as string }
  }
  const sessionsOf = async (collectionId: string) =>
    sql("select id, data from payment_session where payment_collection_id = ? and deleted_at is null", [collectionId])

  it("a copy of a deleted session's data is checked as any data: bad URLs, locale or extra keys are refused; Medusa's Payment holds none", async () => {
    const { cartId, first, ledgerId, own, collectionId } = await deletedSession()
    const origin = (await h.payin().settings.providerOptions("default"))!.allowedRedirectOrigins[0]
    for (const bad of [
      { success_url: "javascript:alert(document.cookie)" },
      { failure_url: "https://evil.example/phish" },
      { locale: "not-a-locale" },
      { junk: "x".repeat(20_000) },
      { payin_note: "mine" },
    ]) {
      const refused = await createSession(collectionId, { ...own, ...bad })
      expect([Object.keys(bad)[0], refused.status]).toEqual([Object.keys(bad)[0], 400])
      expect(refused.data.message).toMatch(/\(payin_invalid_data\)$/)
    }
    // nothing was restored or stored: the pay-in still waits for its deleted session's copy
    expect(await h.ledger.row({ id: ledgerId })).toMatchObject({ session_id: first.id, session_deleted_at: expect.anything() })
    expect(await sessionsOf(collectionId)).toHaveLength(0)

    // the copy with allowed data gets the pay-in back, nothing asked of the service
    const restored = await createSession(collectionId, { ...own, success_url: `${origin}/thanks` })
    expect(restored.status).toBe(200)
    const [session] = await sessionsOf(collectionId)
    expect(session.data).toMatchObject({ payin_id: first.data.payin_id, session_id: session.id, success_url: `${origin}/thanks` })
    expect(sandbox.transactions()).toHaveLength(1)

    // placed and paid: the Payment Medusa books carries the session's data, none of the refused keys
    const completed = await shop.complete(cartId)
    expect(completed.data.type).toBe("order")
    await control(sandbox, "POST", `/_sandbox/transactions/${first.data.payin_id}/pay`)
    await h.deliver()
    const payment = await eventually("the order's captured payment", async () => {
      const [captured] = await h.paymentsOf(session.id, ["id", "data", "captures.amount"])
      return captured?.captures?.length ? captured : null
    })
    expect(payment.captures.map((c: any) => Number(c.amount))).toEqual([1790])
    const allowed = ["method", "bank", "success_url", "failure_url", "locale", "session_id", ...PROVIDER_KEYS]
    expect(Object.keys(payment.data).filter((k) => !allowed.includes(k))).toEqual([])
    expect(payment.data).toMatchObject({ payin_id: first.data.payin_id, success_url: `${origin}/thanks` })
  })

  it("a copy of a pay-in that expired or the store ended is refused: the pay-in stays ended, none is opened", async () => {
    const expired = await deletedSession()
    await control(sandbox, "POST", "/_sandbox/clock/advance", { seconds: 901 })
    await h.deliver()
    const ended = await h.ledger.row({ id: expired.ledgerId })
    expect(ended.status).not.toBe("active")
    const refused = await createSession(expired.collectionId, expired.own)
    expect(refused.status).toBe(400)
    expect(refused.data.message).toMatch(/\(payin_invalid_data\)$/)
    expect(await h.ledger.row({ id: expired.ledgerId })).toMatchObject({ session_id: expired.first.id, session_deleted_at: expect.anything(), status: ended.status })
    expect(await sessionsOf(expired.collectionId)).toHaveLength(0)
    expect(sandbox.transactions()).toHaveLength(1)

    // live at the service, but the store ended it (a canceled payment): never shown again
    const storeEnded = await deletedSession()
    await sql("update payin_transaction set store_canceled_at = now() where id = ?", [storeEnded.ledgerId])
    const again = await createSession(storeEnded.collectionId, storeEnded.own)
    expect(again.status).toBe(400)
    expect(await h.ledger.row({ id: storeEnded.ledgerId })).toMatchObject({ session_id: storeEnded.first.id, session_deleted_at: expect.anything() })
    expect(await sessionsOf(storeEnded.collectionId)).toHaveLength(0)
    expect(sandbox.transactions()).toHaveLength(2)
  })

  it("session_id and payin_client sent by a shopper are written over by the server", async () => {
    const cartId = await shop.cart()
    const collectionId = await shop.paymentCollection(cartId)
    const created = await createSession(collectionId, {
      session_id: "payses_forged",
      payin_client: { ip: "6.6.6.6", user_agent: "forged", payment_collection_id: "pay_col_forged" },
    })
    expect(created.status).toBe(200)
    const session = created.data.payment_collection.payment_sessions.find((s: any) => s.provider_id === "pp_payin_default")
    const [payin] = payinsOfSession(sandbox, session.id)
    expect(payin.extra.externalTransactionId).toBe(session.id)
    expect(payin.extra.payerInfo?.ip).not.toBe("6.6.6.6")
    expect(payin.extra.payerInfo?.userAgent).toBe("PayinTestBrowser/1.0")
    expect(session.data.session_id).toBe(session.id)
    expect(session.data.payin_client).toBeUndefined()
    expect(await h.ledger.row({ session_id: session.id })).toMatchObject({ payment_collection_id: collectionId })
  })
})
