import { renderToStaticMarkup } from "react-dom/server"
import {
  defaultPayinReturnUrl,
  payinMethodsFor,
  payinOffered,
  payinOrderOutcome,
  payinReturnOrderId,
  payinReturnUrl,
  payinSessionData,
  payinSessionMatches,
  type PayinMedusaSdk,
} from "../index"
import { PayinBankMethodSelect, PayinOrderHeading, PayinPaymentButton, usePayinChoice, type PayinChoice } from "../react"
import type { PayinBanksResponse, PayinStatusResponse, PayinStatusView } from "../types"
import { find, findAll } from "./markup"

const BANKS: PayinBanksResponse = {
  provider_id: "pp_payin_default",
  currency: "EUR",
  available: true,
  banks: [
    { name: "wise", methods: ["account", "link"] },
    { name: "sberbank", methods: ["card"] },
  ],
  methods: ["account", "link", "card"],
  stale: false,
  fetched_at: "2026-01-01T00:00:00.000Z",
}

function status(payin: Partial<PayinStatusView> | null, order: Partial<PayinStatusResponse["order"]> | null = {}): PayinStatusResponse {
  return {
    cart_id: "cart_1",
    order: order ? { id: "order_1", display_id: 7, status: "pending", payment_status: "awaiting", ...order } : null,
    payin: payin && ({ provider_id: "pp_payin_default", state: "awaiting_payment", final: false, ...payin } as PayinStatusView),
    server_time: "2026-01-01T00:00:00.000Z",
  }
}

describe("checkout helpers", () => {
  it("offers the methods of the chosen bank, else every method", () => {
    expect(payinMethodsFor(BANKS, "wise")).toEqual(["account", "link"])
    expect(payinMethodsFor(BANKS, "")).toEqual(["account", "link", "card"])
    expect(payinMethodsFor(BANKS, "unknown")).toEqual(["account", "link", "card"])
    expect(payinMethodsFor(null, "wise")).toEqual([])
  })

  it("hides the pay-in only when the account cannot take the cart's currency", () => {
    const methods = [{ id: "pp_system_default" }, { id: "pp_payin_default" }, { id: "pp_payin_eu" }]
    expect(payinOffered(methods, { ...BANKS, available: false }).map((m) => m.id)).toEqual(["pp_system_default"])
    expect(payinOffered(methods, BANKS)).toEqual(methods)
    expect(payinOffered(methods, null)).toEqual(methods)
  })

  it("builds the return URL under the country code, with the cart id", () => {
    expect(defaultPayinReturnUrl("https://shop.example/dk/checkout?step=payment")).toBe("https://shop.example/dk/payin-return")
    expect(defaultPayinReturnUrl("http://localhost:8000/")).toBe("http://localhost:8000/payin-return")
    expect(payinReturnUrl("https://shop.example/dk/payin-return", "cart_01 X")).toBe("https://shop.example/dk/payin-return?cart_id=cart_01+X")
  })

  it("gives session data only to a pay-in: bank, method, page locale, both return URLs", () => {
    expect(payinSessionData("pp_system_default", { bank: "wise" })).toBeUndefined()
    expect(payinSessionData("pp_payin_default", { bank: "", method: "" })).toEqual({})
    expect(
      payinSessionData("pp_payin_default", { bank: "wise", method: "link" }, { cartId: "cart_1", returnUrl: "https://shop.example/dk/payin-return", locale: "ru-RU" })
    ).toEqual({
      bank: "wise",
      method: "link",
      locale: "RU",
      success_url: "https://shop.example/dk/payin-return?cart_id=cart_1",
      failure_url: "https://shop.example/dk/payin-return?cart_id=cart_1",
    })
  })

  it("keeps a pending pay-in session only while it is payable and matches the choice", () => {
    const session = { provider_id: "pp_payin_default", data: { bank: "wise", method: "link", payin_status: "active" } }
    expect(payinSessionMatches(session, {})).toBe(true)
    expect(payinSessionMatches(session, { bank: "wise", method: "link" })).toBe(true)
    expect(payinSessionMatches(session, { bank: "sberbank" })).toBe(false)
    expect(payinSessionMatches(session, { bank: "wise", method: "account" })).toBe(false)
    // the window ended (or the store canceled it): a new session is needed
    expect(payinSessionMatches({ ...session, data: { ...session.data, payin_status: "canceled", error_message: "expired" } }, {})).toBe(false)
    expect(payinSessionMatches({ ...session, data: { ...session.data, payin_canceled: true } }, {})).toBe(false)
    expect(payinSessionMatches({ provider_id: "pp_system_default", data: {} }, { bank: "wise" })).toBe(true)
    // paid on the Payment Page before the order: never replaced
    expect(payinSessionMatches({ ...session, data: { ...session.data, payin_status: "closed" } }, { bank: "sberbank" })).toBe(true)
  })

  it("tells the order page's outcome: awaiting, paid, unpaid, or none", () => {
    expect(payinOrderOutcome(null)).toBeNull()
    expect(payinOrderOutcome(status(null))).toBeNull()
    expect(payinOrderOutcome(status({ state: "pending" }))).toBe("awaiting")
    expect(payinOrderOutcome(status({ state: "awaiting_payment" }))).toBe("awaiting")
    expect(payinOrderOutcome(status({ state: "in_review" }))).toBe("awaiting")
    expect(payinOrderOutcome(status({ state: "paid", final: true }))).toBe("paid")
    expect(payinOrderOutcome(status({ state: "awaiting_payment" }, { payment_status: "captured" }))).toBe("paid")
    for (const state of ["expired", "canceled", "failed"] as const) expect(payinOrderOutcome(status({ state, final: true }))).toBe("unpaid")
  })
})

describe("payinReturnOrderId", () => {
  function sdk(answers: { status?: unknown; complete?: unknown }) {
    const calls: string[] = []
    const fake: PayinMedusaSdk = {
      client: {
        fetch: async <T,>(path: string, init?: { query?: Record<string, string> }) => {
          calls.push(`GET ${path}?${new URLSearchParams(init?.query).toString()}`)
          if (answers.status instanceof Error) throw answers.status
          return answers.status as T
        },
      },
      store: {
        cart: {
          complete: async (id: string) => {
            calls.push(`complete ${id}`)
            if (answers.complete instanceof Error) throw answers.complete
            return answers.complete
          },
        },
      },
    }
    return { fake, calls }
  }

  it("finds the order already placed from the cart, without completing it again", async () => {
    const { fake, calls } = sdk({ status: status({}) })
    await expect(payinReturnOrderId(fake, "cart_1")).resolves.toBe("order_1")
    expect(calls).toEqual(["GET /store/payin/status?cart_id=cart_1"])
  })

  it("places the order when the shopper paid first", async () => {
    const { fake, calls } = sdk({ status: status({}, null), complete: { type: "order", order: { id: "order_2" } } })
    await expect(payinReturnOrderId(fake, "cart_1")).resolves.toBe("order_2")
    expect(calls).toEqual(["GET /store/payin/status?cart_id=cart_1", "complete cart_1"])
  })

  it("completes even when the status cannot be read", async () => {
    const { fake } = sdk({ status: new Error("down"), complete: { type: "order", order: { id: "order_3" } } })
    await expect(payinReturnOrderId(fake, "cart_1")).resolves.toBe("order_3")
  })

  it("is null when nothing can be placed, or without a sane cart id", async () => {
    await expect(payinReturnOrderId(sdk({ status: status({}, null), complete: { type: "cart", cart: {} } }).fake, "cart_1")).resolves.toBeNull()
    await expect(payinReturnOrderId(sdk({ status: status({}, null), complete: new Error("expired") }).fake, "cart_1")).resolves.toBeNull()
    const { fake, calls } = sdk({})
    await expect(payinReturnOrderId(fake, null)).resolves.toBeNull()
    await expect(payinReturnOrderId(fake, "../x?y")).resolves.toBeNull()
    expect(calls).toEqual([])
  })
})

describe("checkout components", () => {
  const cart = {
    id: "cart_1",
    payment_collection: { payment_sessions: [{ status: "pending", provider_id: "pp_payin_default", data: { bank: "wise", method: "link" } }] },
  }
  let captured: PayinChoice | undefined
  function Probe(props: { providerId: string; banks?: PayinBanksResponse | null; cart?: typeof cart }) {
    const choice = usePayinChoice(props.cart ?? cart, { banks: props.banks === undefined ? BANKS : props.banks, returnUrl: "https://shop.example/dk/payin-return" })
    captured = choice
    return <PayinBankMethodSelect choice={choice} providerId={props.providerId} />
  }

  it("shows the bank and method selects for a pay-in, starting from the pending session's choice", () => {
    const html = renderToStaticMarkup(<Probe providerId="pp_payin_default" />)
    const bank = find(html, 'data-testid="payin-bank-select"')!
    expect(findAll(bank.html, "value=").map((o) => o.text)).toEqual(["Any bank", "Wise", "Sberbank"])
    expect(find(bank.html, 'value="wise"')!.attrs.selected).toBe("")
    const method = find(html, 'data-testid="payin-method-select"')!
    expect(findAll(method.html, "value=").map((o) => o.text)).toEqual(["Any method", "Bank account", "Payment link"])
    expect(captured!.keeps("pp_payin_default")).toBe(true)
    expect(captured!.keeps("pp_system_default")).toBe(false)
    expect(captured!.sessionData("pp_payin_default")).toEqual({
      bank: "wise",
      method: "link",
      success_url: "https://shop.example/dk/payin-return?cart_id=cart_1",
      failure_url: "https://shop.example/dk/payin-return?cart_id=cart_1",
    })
    expect(captured!.errorText({ code: "payin_requisites_unavailable", message: "x", status: 422 })).toMatch(/another bank or method.*\(payin_requisites_unavailable\)$/)
    expect(captured!.offered([{ id: "pp_payin_default" }])).toEqual([{ id: "pp_payin_default" }])
  })

  it("shows nothing for another provider, unknown banks or an unavailable currency", () => {
    expect(renderToStaticMarkup(<Probe providerId="pp_system_default" />)).toBe("")
    expect(renderToStaticMarkup(<Probe providerId="pp_payin_default" banks={null} />)).toBe("")
    expect(renderToStaticMarkup(<Probe providerId="pp_payin_default" banks={{ ...BANKS, available: false, banks: [] }} />)).toBe("")
  })

  it("renders the pay-in button with the Payment Page link only when the link is safe", () => {
    const placeOrder = async () => undefined
    const html = renderToStaticMarkup(
      <PayinPaymentButton session={{ data: { payment_page_url: "https://pay.example/p/1" } }} placeOrder={placeOrder} data-testid="submit-order-button" />
    )
    expect(find(html, 'data-testid="submit-order-button"')!.text).toBe("Place order")
    expect(find(html, 'data-testid="payin-payment-page-link"')!.attrs.href).toBe("https://pay.example/p/1")
    const unsafe = renderToStaticMarkup(<PayinPaymentButton session={{ data: { payment_page_url: "javascript:alert(1)" } }} placeOrder={placeOrder} notReady />)
    expect(find(unsafe, 'data-testid="payin-payment-page-link"')).toBeUndefined()
    expect(find(unsafe, 'data-testid="submit-order-button"')!.attrs.disabled).toBe("")
    const own = renderToStaticMarkup(
      <PayinPaymentButton session={null} placeOrder={placeOrder} renderButton={({ loading, ...p }) => <button className="mine" data-loading={String(loading)} {...p} />} />
    )
    expect(find(own, 'class="mine"')!.attrs["data-loading"]).toBe("false")
  })

  it("turns the order heading to the pay-in's outcome; other orders keep the store's heading", () => {
    const heading = (s: PayinStatusResponse | null) =>
      renderToStaticMarkup(
        <PayinOrderHeading status={s}>
          <span>Your order was placed successfully.</span>
        </PayinOrderHeading>
      )
    expect(heading(null)).toBe("<span>Your order was placed successfully.</span>")
    expect(heading(status(null))).toBe("<span>Your order was placed successfully.</span>")
    const awaiting = find(heading(status({})), 'data-testid="payin-order-heading"')!
    expect([awaiting.attrs["data-outcome"], awaiting.text]).toEqual(["awaiting", "Thank you!Your order was placed and awaits your payment."])
    expect(find(heading(status({ state: "paid", final: true })), "payin-order-heading")!.text).toBe("Thank you!Your order was placed and paid.")
    const unpaid = find(heading(status({ state: "expired", final: true }, { status: "canceled" })), "payin-order-heading")!
    expect([unpaid.attrs["data-outcome"], unpaid.text]).toEqual([
      "unpaid",
      "Your order was not paid.The payment window ended before a payment arrived. The order was canceled.",
    ])
    expect(find(renderToStaticMarkup(<PayinOrderHeading status={status({})} locale="ru" />), "payin-order-heading")!.text).toBe("Спасибо!Заказ оформлен и ждёт оплаты.")
  })
})
