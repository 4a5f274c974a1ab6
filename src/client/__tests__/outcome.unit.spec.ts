import { parseAnswer } from "../answer"
import { PayinResponseTooLargeError, PayinServiceError } from "../errors"
import { TransactionSchema } from "../schemas"
import { DeadlineError, transportError } from "../transport"
import { serviceOutcomeOf } from "../outcome"

/** The error the client throws for an answer of `status` with `body`. */
function answered(status: number, body: unknown = {}): unknown {
  try {
    parseAnswer({ status, text: JSON.stringify(body) }, TransactionSchema, "GET", "/payment/trading/x", true)
  } catch (error) {
    return error
  }
  throw new Error(`status ${status} did not throw`)
}

describe("the outcome kind of a failed service call", () => {
  it.each([
    [401, {}, "key_refused"],
    [403, { code: "MERCHANT_IP_NOT_WHITELISTED", message: "203.0.113.7 is not whitelisted" }, "ip_not_whitelisted"],
    [403, { code: "FORBIDDEN" }, "refused"],
    [404, {}, "not_found"],
    [400, { code: "VALIDATION", message: "fiatAmount" }, "refused"],
    [409, { code: "DUPLICATE_EXTERNAL_ID" }, "duplicate_external_id"],
    [422, { code: "REQUISITES_UNAVAILABLE" }, "requisites_unavailable"],
    [500, {}, "server_error"],
    [502, {}, "server_error"],
    [503, { message: "maintenance" }, "server_error"],
    [429, {}, "throttled"],
    [408, {}, "throttled"],
  ])("an answer %i %j is %s", (status, body, outcome) => {
    expect(serviceOutcomeOf(answered(status, body))).toBe(outcome)
  })

  it("a 2xx answer that is not the service's is a malformed answer", () => {
    expect(serviceOutcomeOf(answered(200, { not: "a transaction" }))).toBe("malformed_answer")
  })

  it("a deadline, a refused or reset connection are timeout and network", () => {
    expect(serviceOutcomeOf(transportError(new DeadlineError(), "GET", "/x", "15000 ms"))).toBe("timeout")
    expect(serviceOutcomeOf(transportError(Object.assign(new Error("connect"), { code: "ECONNREFUSED" }), "GET", "/x", "15000 ms"))).toBe("network")
    expect(serviceOutcomeOf(transportError(Object.assign(new Error("reset"), { code: "ECONNRESET" }), "POST", "/x", "15000 ms"))).toBe("network")
    expect(serviceOutcomeOf(transportError(Object.assign(new Error("refused"), { code: "ADDRESS_NOT_ALLOWED" }), "GET", "/x", "1 ms"))).toBe(
      "address_not_allowed"
    )
  })

  it("an answer over the size cap is answer_too_large", () => {
    expect(serviceOutcomeOf(new PayinResponseTooLargeError({ status: 200 }, 1024))).toBe("answer_too_large")
  })

  it("anything that is not the client's error is other", () => {
    expect(serviceOutcomeOf(new Error("boom"))).toBe("other")
    expect(serviceOutcomeOf({ kind: "made_up" })).toBe("other")
    expect(serviceOutcomeOf(null)).toBe("other")
    expect(serviceOutcomeOf(new PayinServiceError("server", "no status"))).toBe("server_error")
  })
})
