import { renderToStaticMarkup } from "react-dom/server"
import { formatDateTime } from "../format"
import { PayinLiveInstructions, usePayinPayAgain, usePayinStatus, type PayinLiveInstructionsProps, type UsePayinPayAgainResult, type UsePayinStatusResult } from "../react"
import { getMessages } from "../messages"
import { PayAgainView, payAgainClosed } from "../react/pay-again"
import type { PayinPayAgainResult } from "../store-client"
import type { PayinStatusResponse, PayinStatusView } from "../types"
import { find } from "./markup"

// No DOM in the node test environment: the markup is rendered on the server, and the button's
// logic (usePayinPayAgain, usePayinStatus' replace) is captured from a render and driven by hand,
// as a click would.

const NOW = Date.parse("2025-03-01T12:00:00.000Z")
const UNTIL = "2025-03-02T12:00:00.000Z"

function view(over: Partial<PayinStatusView> = {}): PayinStatusView {
  return {
    provider_id: "pp_payin_default",
    payin_id: "old-tx",
    state: "expired",
    service_status: "canceled",
    final: true,
    amount: "1790.00",
    currency: "RUB",
    paid_amount: null,
    method: "card",
    bank: "sberbank",
    requisite: null,
    payment_page_url: null,
    created_at: "2025-03-01T11:30:00.000Z",
    expires_at: "2025-03-01T11:50:00.000Z",
    seconds_left: 0,
    paid_at: null,
    ...over,
  }
}

function status(payin: PayinStatusView | null, payAgain: { until: string } | null = { until: UNTIL }): PayinStatusResponse {
  return {
    cart_id: null,
    order: { id: "order_1", display_id: 7, status: "pending", payment_status: "awaiting" },
    payin,
    pay_again: payAgain,
    server_time: new Date(NOW).toISOString(),
  }
}

const EXPIRED = status(view())
const FRESH = status(
  view({
    payin_id: "new-tx",
    state: "awaiting_payment",
    service_status: "active",
    final: false,
    requisite: { bank: "sberbank", owner_name: "Anna K.", number: "2202209999999999", sbp_number: null },
    expires_at: new Date(NOW + 900_000).toISOString(),
    seconds_left: 900,
  }),
  null
)

const never = () => new Promise<PayinStatusResponse>(() => {})
const live = (props: Partial<PayinLiveInstructionsProps>) =>
  renderToStaticMarkup(<PayinLiveInstructions fetchStatus={never} payAgain={async () => FRESH} initial={EXPIRED} {...props} />)
const button = (html: string) => find(html, 'data-testid="payin-pay-again"')

beforeEach(() => {
  jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate", "queueMicrotask"] })
  jest.setSystemTime(NOW)
})
afterEach(() => jest.useRealTimers())

describe("the pay-again button in PayinLiveInstructions", () => {
  it("shows under the outcome of an expired pay-in while pay_again is set, with until when", () => {
    const html = live({})
    expect(find(html, 'data-payin="outcome"')!.attrs["data-outcome"]).toBe("expired")
    expect(button(html)!.attrs).toMatchObject({ type: "button", class: "payin-button payin-button-primary" })
    expect(button(html)!.attrs.disabled).toBeUndefined()
    expect(button(html)!.text).toBe("Get new payment details")
    expect(find(html, 'data-payin="pay-again-until"')!.text).toBe(`You can get new payment details until ${formatDateTime(UNTIL, "en")}.`)
  })

  it("speaks Russian", () => {
    const html = live({ locale: "ru" })
    expect(button(html)!.text).toBe("Получить новые реквизиты")
    expect(find(html, 'data-payin="pay-again-until"')!.text).toBe(`Новые реквизиты можно получить до ${formatDateTime(UNTIL, "ru")}.`)
  })

  it("shows for a canceled pay-in too", () => {
    expect(button(live({ initial: status(view({ state: "canceled" })) }))).toBeDefined()
  })

  it("does not show without pay_again, while payable, once paid or failed, or without payAgain", () => {
    expect(button(live({ initial: status(view(), null) }))).toBeUndefined()
    expect(button(live({ initial: { ...EXPIRED, pay_again: undefined } }))).toBeUndefined()
    expect(button(live({ initial: { ...FRESH, pay_again: { until: UNTIL } } }))).toBeUndefined()
    expect(button(live({ initial: status(view({ state: "paid" })) }))).toBeUndefined()
    expect(button(live({ initial: status(view({ state: "failed" })) }))).toBeUndefined()
    expect(button(live({ payAgain: undefined }))).toBeUndefined()
  })

  it("shows the new requisites (and no button) once the answer replaced the status", () => {
    const html = live({ initial: FRESH })
    expect(find(html, 'data-payin="instructions"')!.attrs["data-state"]).toBe("awaiting_payment")
    expect(find(html, 'data-payin="requisite"')!.text).toBe("2202 2099 9999 9999")
    expect(button(html)).toBeUndefined()
  })
})

describe("usePayinPayAgain (the click)", () => {
  let captured: UsePayinPayAgainResult | undefined
  function Probe(props: { payAgain: () => Promise<PayinPayAgainResult>; onDone: (r: PayinStatusResponse) => void }) {
    captured = usePayinPayAgain(props.payAgain, props.onDone)
    return null
  }
  const drive = (payAgain: () => Promise<PayinPayAgainResult>) => {
    const onDone = jest.fn()
    renderToStaticMarkup(<Probe payAgain={payAgain} onDone={onDone} />)
    return { onDone, hook: captured! }
  }

  it("sends one request for a double click and hands over the new pay-in", async () => {
    const payAgain = jest.fn(async () => FRESH)
    const { onDone, hook } = drive(payAgain)
    expect([hook.busy, hook.error, hook.closed]).toEqual([false, null, false])
    const first = hook.run()
    const second = hook.run()
    expect(second).toBe(first)
    await first
    expect(payAgain).toHaveBeenCalledTimes(1)
    expect(onDone).toHaveBeenCalledTimes(1)
    expect(onDone).toHaveBeenCalledWith(FRESH)
    // done: a later click asks again (the server answers the same new pay-in)
    await hook.run()
    expect(payAgain).toHaveBeenCalledTimes(2)
  })

  it("does not hand over a refusal, thrown or returned as { error }", async () => {
    const thrown = drive(async () => Promise.reject(Object.assign(new Error("Grace period over (payin_grace_over)"), { status: 409 })))
    await thrown.hook.run()
    expect(thrown.onDone).not.toHaveBeenCalled()
    const returned = drive(async () => ({ error: { code: "payin_order_paid", message: "Paid", status: 409 } }))
    await returned.hook.run()
    expect(returned.onDone).not.toHaveBeenCalled()
  })
})

describe("PayinPayAgain's refusal messages", () => {
  // The state the hook holds after a failed click (its `closed` as the hook computes it).
  function renderError(code: string | null, locale: "en" | "ru" = "en") {
    const error = { code, message: "Server text", status: 409 }
    const state = { run: async () => {}, busy: false, error, closed: payAgainClosed(error) }
    return renderToStaticMarkup(<PayAgainView {...state} until={UNTIL} locale={locale} messages={getMessages(locale)} />)
  }

  it("marks the button disabled while the request runs, keeping the keyboard's focus on it", () => {
    const html = renderToStaticMarkup(<PayAgainView run={async () => {}} busy error={null} closed={false} until={UNTIL} locale="en" messages={getMessages("en")} />)
    expect(button(html)!.attrs).toMatchObject({ "aria-disabled": "true", "aria-busy": "true" })
    expect(button(html)!.attrs.disabled).toBeUndefined()
  })

  it("says why, in English and Russian, with the code, and hides the button for a lasting refusal", () => {
    const en = renderError("payin_grace_over")
    expect(find(en, 'data-testid="payin-pay-again-error"')!.attrs.role).toBe("alert")
    expect(find(en, 'data-testid="payin-pay-again-error"')!.text).toBe("The time to get new payment details for this order is over. (payin_grace_over)")
    expect(button(en)).toBeUndefined()
    const ru = renderError("payin_order_canceled", "ru")
    expect(find(ru, 'data-testid="payin-pay-again-error"')!.text).toBe("Заказ отменён. Чтобы купить эти товары, оформите новый заказ. (payin_order_canceled)")
  })

  it("closes for the five pay-again refusals only", () => {
    for (const code of ["payin_pay_again_off", "payin_grace_over", "payin_order_paid", "payin_order_canceled", "payin_not_this_provider"]) {
      expect([code, payAgainClosed({ code, message: "", status: 409 })]).toEqual([code, true])
    }
    expect(payAgainClosed({ code: "payin_requisites_unavailable", message: "", status: 422 })).toBe(false)
    expect(payAgainClosed(null)).toBe(false)
  })

  it("keeps the button for a passing refusal or a network error", () => {
    const busy = renderError("payin_too_many_attempts")
    expect(find(busy, 'data-testid="payin-pay-again-error"')!.text).toMatch(/^Too many attempts.*\(payin_too_many_attempts\)$/)
    expect(button(busy)).toBeDefined()
    const network = renderError(null)
    expect(find(network, 'data-testid="payin-pay-again-error"')!.text).toBe("Server text")
    expect(button(network)).toBeDefined()
  })
})

describe("usePayinStatus' replace", () => {
  it("passes the new answer on (to the heading and onUpdate)", () => {
    let captured: UsePayinStatusResult | undefined
    const onUpdate = jest.fn()
    function Probe() {
      captured = usePayinStatus({ fetchStatus: never, initial: EXPIRED, onUpdate })
      return null
    }
    renderToStaticMarkup(<Probe />)
    expect(captured!.data).toBe(EXPIRED)
    captured!.replace(FRESH)
    expect(onUpdate).toHaveBeenCalledWith(FRESH)
  })
})

describe("formatDateTime", () => {
  it("writes a moment the locale's way, and nothing for a non-date", () => {
    expect(formatDateTime(UNTIL, "en", "UTC")).toBe("Mar 2, 2025, 12:00 PM")
    expect(formatDateTime(UNTIL, "ru", "UTC")).toBe("2 мар. 2025 г., 12:00")
    expect(formatDateTime("soon", "en")).toBe("")
    expect(formatDateTime(null)).toBe("")
  })
})
