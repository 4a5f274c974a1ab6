import { splitCode, withCode } from "../../error-code"
import { getMessages, payinErrorOf, PayinStoreApiError } from "../index"

describe("error codes through clients that keep only the message", () => {
  it("writes the code once at the end and reads it back", () => {
    const message = withCode("No requisites for this bank", "payin_requisites_unavailable")
    expect(message).toBe("No requisites for this bank (payin_requisites_unavailable)")
    expect(withCode(message, "payin_requisites_unavailable")).toBe(message)
    expect(splitCode(message)).toEqual({ code: "payin_requisites_unavailable", text: "No requisites for this bank" })
    expect(splitCode("Bank (sber) is down")).toEqual({ code: null, text: "Bank (sber) is down" })
  })

  it("reads the code of a js-sdk FetchError (message, status, statusText only)", () => {
    class FetchError extends Error {
      constructor(message: string, public statusText: string, public status: number) {
        super(message)
      }
    }
    const e = new FetchError("No free requisites right now (payin_requisites_unavailable)", "Bad Request", 400)
    expect(payinErrorOf(e)).toEqual({ code: "payin_requisites_unavailable", message: "No free requisites right now", status: 400 })
  })

  it("prefers the body's code, and gives the message otherwise", () => {
    const api = new PayinStoreApiError(503, { type: "payin_unavailable", code: "payin_unavailable", message: "Down. (payin_unavailable)" })
    expect(payinErrorOf(api)).toEqual({ code: "payin_unavailable", message: "Down.", status: 503 })
    // an answer that carries the code only in its message (a custom transport) still gets it
    expect(new PayinStoreApiError(400, { message: "Bad bank (payin_invalid_data)" }).code).toBe("payin_invalid_data")
    expect(payinErrorOf(new Error("socket hang up"))).toEqual({ code: null, message: "socket hang up", status: null })
    expect(payinErrorOf(undefined)).toEqual({ code: null, message: "Unknown error", status: null })
  })

  it("tells the shopper what to do, in their language, with the code", () => {
    expect(getMessages("en").errorText("payin_requisites_unavailable", "x")).toMatch(/another bank or method.*\(payin_requisites_unavailable\)$/)
    expect(getMessages("ru").errorText("payin_unavailable", "x")).toMatch(/недоступна.*\(payin_unavailable\)$/)
    expect(getMessages("en").errorText("payin_rejected", "The payment service refused the payment: amount")).toBe(
      "The payment service refused the payment: amount (payin_rejected)"
    )
    expect(getMessages("en").errorText(null, "Network error")).toBe("Network error")
    expect(getMessages("ru").methodName("phone_number")).toBe("Номер телефона (СБП)")
    expect(getMessages("en").methodName("brand_new")).toBe("brand_new")
  })
})
