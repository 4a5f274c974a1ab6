import { renderToStaticMarkup } from "react-dom/server"
import { PayinInstructions, PayinLiveInstructions, type PayinInstructionsProps } from "../react"
import type { PayinStatusResponse, PayinStatusView } from "../types"
import { find, findAll, spaces } from "./markup"

const NOW = Date.parse("2025-03-01T12:00:00.000Z")

function view(over: Partial<PayinStatusView> = {}): PayinStatusView {
  return {
    provider_id: "pp_payin_payin",
    payin_id: "7f3a-tx",
    state: "awaiting_payment",
    service_status: "active",
    final: false,
    amount: "1790.00",
    currency: "RUB",
    paid_amount: null,
    method: "card",
    bank: "sberbank",
    requisite: { bank: "sberbank", owner_name: "Ivan Ivanovich P.", number: "2202201234567890", sbp_number: "+79123456789" },
    payment_page_url: "https://pay.service.example/pay/7f3a-tx",
    created_at: "2025-03-01T11:50:00.000Z",
    expires_at: new Date(NOW + 872_000).toISOString(),
    seconds_left: 872,
    paid_at: null,
    ...over,
  }
}

const render = (props: Partial<PayinInstructionsProps> & { payin?: PayinStatusView } = {}) =>
  renderToStaticMarkup(<PayinInstructions payin={props.payin ?? view()} {...props} />)

/** Renders on first use, inside a test, when the fake clock is set. */
function lazy(fn: () => string): () => string {
  let value: string | undefined
  return () => (value ??= fn())
}

/** The copy button that follows the value element `name` in the same field. */
const copyButton = (html: string, target: string) => find(html, `data-copy-target="${target}"`)

beforeEach(() => {
  jest.useFakeTimers()
  jest.setSystemTime(NOW)
})
afterEach(() => jest.useRealTimers())

describe("PayinInstructions (English)", () => {
  const html = lazy(() => render({ actions: <button type="button" data-testid="simulate">Simulate</button> }))

  it("marks the root with the state and an accessible name", () => {
    const root = find(html(), 'data-payin="instructions"')!
    expect(root.attrs["data-state"]).toBe("awaiting_payment")
    expect(root.attrs["aria-label"]).toBe("Payment instructions")
    expect(root.attrs.lang).toBe("en")
    expect(root.attrs.class).toBe("payin-root")
  })

  it("announces the status politely", () => {
    const status = find(html(), 'data-payin="status"')!
    expect(status.attrs["aria-live"]).toBe("polite")
    expect(status.text).toBe("Awaiting your payment")
    expect(html()).toContain("Transfer exactly this amount")
  })

  it("shows the formatted amount with a copy button that copies the raw amount", () => {
    expect(spaces(find(html(), 'data-payin="amount"')!.text)).toBe("RUB 1,790.00")
    const copy = copyButton(html(), "amount")!
    expect(copy.attrs).toMatchObject({ type: "button", "aria-label": "Copy amount", "data-payin": "copy", "data-copy-value": "1790.00" })
    expect(copy.text).toBe("Copy")
  })

  it("shows bank, card number (grouped, labelled by method), SBP phone and recipient", () => {
    expect(find(html(), 'data-payin="bank"')!.text).toBe("Sberbank")
    expect(find(html(), 'data-payin="requisite"')!.text).toBe("2202 2012 3456 7890")
    expect(html()).toContain(">Card number</dt>")
    expect(copyButton(html(), "requisite")!.attrs).toMatchObject({ "aria-label": "Copy card number", "data-copy-value": "2202201234567890" })
    expect(find(html(), 'data-payin="sbp"')!.text).toBe("+7 912 345-67-89")
    expect(copyButton(html(), "sbp")!.attrs).toMatchObject({ "aria-label": "Copy SBP phone number", "data-copy-value": "+79123456789" })
    expect(find(html(), 'data-payin="owner"')!.text).toBe("Ivan Ivanovich P.")
  })

  it("has a live region for each copy button", () => {
    expect(findAll(html(), 'data-payin="copy"')).toHaveLength(3)
    expect(findAll(html(), 'class="payin-sr" aria-live="polite" data-payin="copy-status"')).toHaveLength(3)
  })

  it("counts down with a timer role and the time in words", () => {
    const countdown = find(html(), 'data-payin="countdown"')!
    expect(countdown.attrs).toMatchObject({ role: "timer", "aria-live": "off", "data-seconds": "872", "aria-label": "14 minutes 32 seconds left" })
    expect(countdown.text).toContain("14:32")
  })

  it("has a polite live region for the countdown, empty until a step is crossed (not every second)", () => {
    const region = find(html(), 'data-payin="countdown-announcement"')!
    expect(region.attrs).toMatchObject({ class: "payin-sr", "aria-live": "polite", "aria-atomic": "true" })
    expect(region.text).toBe("")
  })

  it("lets the status line take the focus (after pay again) without putting it in the tab order", () => {
    expect(find(html(), 'data-payin="status"')!.attrs.tabindex).toBe("-1")
  })

  it("links the hosted Payment Page in the same tab", () => {
    const link = find(html(), 'data-payin="page-link"')!
    expect(link.tag.startsWith("<a ")).toBe(true)
    expect(link.attrs).toMatchObject({ href: "https://pay.service.example/pay/7f3a-tx", rel: "noopener noreferrer" })
    expect(link.attrs.target).toBeUndefined()
    expect(link.text).toBe("Open the payment page")
  })

  it("shows no QR or pay link for a card, and shows the caller's actions", () => {
    expect(find(html(), 'data-payin="qr"')).toBeUndefined()
    expect(find(html(), 'data-payin="pay-link"')).toBeUndefined()
    expect(html()).toContain('data-testid="simulate"')
  })

  it("brings its own stylesheet with payin- classes", () => {
    expect(html().startsWith("<style>")).toBe(true)
    expect(html()).toContain(".payin-copy{")
    expect(render({ unstyled: true })).not.toContain("<style")
    expect(render({ nonce: "r4nd0m" })).toMatch(/^<style nonce="r4nd0m">/)
  })
})

describe("PayinInstructions (Russian)", () => {
  const html = lazy(() => render({ locale: "ru" }))

  it("speaks Russian and formats the amount the Russian way", () => {
    expect(find(html(), 'data-payin="instructions"')!.attrs).toMatchObject({ lang: "ru", "aria-label": "Оплата переводом" })
    expect(find(html(), 'data-payin="status"')!.text).toBe("Ждём ваш перевод")
    expect(spaces(find(html(), 'data-payin="amount"')!.text)).toBe("1 790,00 ₽")
    expect(html()).toContain(">Сумма перевода</dt>")
    expect(html()).toContain(">Номер карты</dt>")
    expect(html()).toContain(">Телефон для перевода по СБП</dt>")
    expect(html()).toContain(">Получатель</dt>")
  })

  it("labels buttons and the timer in Russian", () => {
    expect(copyButton(html(), "amount")!.attrs["aria-label"]).toBe("Скопировать сумму")
    expect(copyButton(html(), "requisite")!.attrs["aria-label"]).toBe("Скопировать номер карты")
    expect(copyButton(html(), "requisite")!.text).toBe("Скопировать")
    expect(find(html(), 'data-payin="countdown"')!.attrs["aria-label"]).toBe("До конца оплаты 14 минут 32 секунды")
    expect(find(html(), 'data-payin="page-link"')!.text).toBe("Перейти на страницу оплаты")
  })
})

describe("PayinInstructions by method", () => {
  it("shows an SBP QR as an SVG image and a pay-by-SBP link for a qr requisite", () => {
    const html = render({
      payin: view({ method: "qr", requisite: { bank: "tinkoff", owner_name: "Anna K.", number: "https://qr.nspk.ru/AS1000ABCDEF", sbp_number: null } }),
    })
    const qr = find(html, 'data-payin="qr"')!
    // its text alternative says what it encodes and for how much
    expect(qr.html).toMatch(/<svg[^>]*role="img"[^>]*aria-label="SBP QR code to pay RUB.1,790\.00"/)
    expect(qr.html).toMatch(/<path d="M\d+ \d+h\d+/)
    const pay = find(html, 'data-payin="pay-link"')!
    expect(pay.attrs).toMatchObject({ href: "https://qr.nspk.ru/AS1000ABCDEF", rel: "noopener noreferrer" })
    expect(pay.text).toBe("Pay by SBP QR")
    expect(html).toContain(">Payment link</dt>")
  })

  it("opens a bank's https payment link", () => {
    const html = render({ payin: view({ method: "link", requisite: { bank: "vtb", owner_name: "", number: "https://pay.vtb.example/t/01ab", sbp_number: null } }) })
    expect(find(html, 'data-payin="pay-link"')!.attrs.href).toBe("https://pay.vtb.example/t/01ab")
    expect(find(html, 'data-payin="pay-link"')!.text).toBe("Open the payment link")
    expect(find(html, 'data-payin="qr"')).toBeDefined()
    expect(find(html, 'data-payin="owner"')).toBeUndefined()
  })

  it("never links a javascript: deeplink", () => {
    const html = render({ payin: view({ method: "deeplink", requisite: { bank: "x", owner_name: "", number: "javascript:alert(1)", sbp_number: null } }) })
    expect(find(html, 'data-payin="pay-link"')).toBeUndefined()
    expect(find(html, 'data-payin="qr"')).toBeUndefined()
    expect(html).not.toContain('href="javascript')
  })

  it("offers a bank app link for a custom-scheme deeplink", () => {
    const html = render({ payin: view({ method: "deeplink", requisite: { bank: "tinkoff", owner_name: "", number: "tinkoff://transfer?phone=79123456789", sbp_number: null } }) })
    expect(find(html, 'data-payin="pay-link"')!.text).toBe("Open in the bank app")
  })

  it("labels and groups accounts and phones", () => {
    const account = render({ payin: view({ method: "account", requisite: { bank: "sberbank", owner_name: "", number: "40817810012345678901", sbp_number: null } }) })
    expect(account).toContain(">Account number</dt>")
    expect(find(account, 'data-payin="requisite"')!.text).toBe("40817 810 0 1234 5678901")
    const phone = render({ payin: view({ method: "mobile_comm", requisite: { bank: "mts", owner_name: "", number: "+79123456789", sbp_number: "+79123456789" } }) })
    expect(phone).toContain(">Phone number</dt>")
    // the SBP phone is the requisite itself: not shown twice
    expect(find(phone, 'data-payin="sbp"')).toBeUndefined()
  })

  it("leaves out the page link when there is none or it is not safe", () => {
    expect(find(render({ payin: view({ payment_page_url: null }) }), 'data-payin="page-link"')).toBeUndefined()
    expect(find(render({ payin: view({ payment_page_url: "javascript:alert(1)" }) }), 'data-payin="page-link"')).toBeUndefined()
  })
})

describe("PayinInstructions over time", () => {
  it("writes long windows as h:mm:ss", () => {
    const html = render({ payin: view({ expires_at: new Date(NOW + 3_725_000).toISOString() }) })
    expect(find(html, 'data-payin="countdown"')!.text).toContain("1:02:05")
  })

  it("corrects the countdown with the clock offset", () => {
    const html = render({ clockOffsetMs: 72_000 })
    expect(find(html, 'data-payin="countdown"')!.attrs["data-seconds"]).toBe("800")
  })

  it("says it is checking once the window has ended but the pay-in is not final", () => {
    const html = render({ payin: view({ expires_at: new Date(NOW - 1_000).toISOString(), seconds_left: 0 }) })
    expect(find(html, 'data-payin="status"')!.text).toBe("The payment window has ended. Checking the payment status…")
    const countdown = find(html, 'data-payin="countdown"')!
    expect(countdown.attrs["data-seconds"]).toBe("0")
    expect(countdown.text).toContain("00:00")
  })
})

describe("PayinInstructions outcomes", () => {
  it("shows no requisites once expired, even if the data still has them", () => {
    const html = render({ payin: view({ state: "expired", final: true, service_status: "canceled" }) })
    expect(find(html, 'data-payin="instructions"')!.attrs["data-state"]).toBe("expired")
    for (const hook of ["requisite", "sbp", "owner", "bank", "copy", "countdown", "page-link", "qr", "pay-link"]) {
      expect(find(html, `data-payin="${hook}"`)).toBeUndefined()
    }
    const outcome = find(html, 'data-payin="outcome"')!
    expect(outcome.attrs["data-outcome"]).toBe("expired")
    expect(outcome.text).toContain("The payment window has closed")
    expect(outcome.text).toContain("Do not transfer money to these details")
    expect(find(html, 'data-payin="status"')!.text).toBe("Not paid: the payment window ended")
    expect(find(html, 'data-payin="status"')!.attrs["data-tone"]).toBe("danger")
  })

  it("celebrates a paid pay-in with the amount", () => {
    const html = render({ payin: view({ state: "paid", final: true, requisite: null, payment_page_url: null }), locale: "ru" })
    const outcome = find(html, 'data-payin="outcome"')!
    expect(outcome.attrs["data-outcome"]).toBe("paid")
    expect(outcome.text).toContain("Оплата получена")
    expect(spaces(outcome.text)).toContain("1 790,00 ₽")
    expect(find(html, 'data-payin="status"')!.attrs["data-tone"]).toBe("success")
  })

  it("explains canceled and failed pay-ins", () => {
    expect(find(render({ payin: view({ state: "canceled", final: true }) }), 'data-payin="outcome"')!.text).toContain("no longer valid")
    expect(find(render({ payin: view({ state: "failed", final: true, requisite: null }) }), 'data-payin="outcome"')!.text).toContain(
      "could not get payment details"
    )
  })

  it("asks not to pay again while in review, without requisites", () => {
    const html = render({ payin: view({ state: "in_review", service_status: "dispute" }) })
    expect(find(html, 'data-payin="requisite"')).toBeUndefined()
    expect(html).toContain("no need to pay again")
    expect(find(html, 'data-payin="amount"')).toBeDefined()
  })

  it("marks a pending pay-in busy", () => {
    const html = render({ payin: view({ state: "pending", requisite: null, payin_id: null }) })
    expect(find(html, 'data-payin="instructions"')!.attrs["aria-busy"]).toBe("true")
    expect(find(html, 'data-payin="status"')!.text).toBe("Getting your payment details…")
  })

  it("shows the order number and takes overridden messages", () => {
    const html = render({
      order: { id: "order_1", display_id: 42, status: "pending", payment_status: "awaiting" },
      messages: { copy: "Copy it", stateAwaitingPayment: "Pay now" },
    })
    expect(html).toContain("Order #42")
    expect(find(html, 'data-payin="status"')!.text).toBe("Pay now")
    expect(copyButton(html, "amount")!.text).toBe("Copy it")
    expect(find(html, 'data-payin="instructions"')!.attrs["data-payment-status"]).toBe("awaiting")
  })
})

describe("PayinLiveInstructions (first render)", () => {
  const fetchStatus = () => new Promise<PayinStatusResponse>(() => {})

  it("shows a loading state before the first answer", () => {
    const html = renderToStaticMarkup(<PayinLiveInstructions fetchStatus={fetchStatus} locale="ru" />)
    const root = find(html, 'data-payin="loading"')!
    expect(root.attrs["aria-busy"]).toBe("true")
    expect(root.text).toBe("Загружаем данные об оплате…")
  })

  it("renders the instructions from an initial answer", () => {
    const initial: PayinStatusResponse = { cart_id: null, order: null, payin: view(), server_time: new Date(NOW).toISOString() }
    const html = renderToStaticMarkup(<PayinLiveInstructions fetchStatus={fetchStatus} initial={initial} />)
    expect(find(html, 'data-payin="instructions"')!.attrs["data-state"]).toBe("awaiting_payment")
    expect(find(html, 'data-payin="requisite"')!.text).toBe("2202 2012 3456 7890")
  })

  it("says so when the answer has no pay-in", () => {
    const initial: PayinStatusResponse = { cart_id: null, order: null, payin: null, server_time: new Date(NOW).toISOString() }
    const html = renderToStaticMarkup(<PayinLiveInstructions fetchStatus={fetchStatus} initial={initial} />)
    expect(find(html, 'data-payin="status"')!.text).toBe("This order is not paid by bank transfer.")
  })
})
