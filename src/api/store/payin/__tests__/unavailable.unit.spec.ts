import { MedusaError } from "@medusajs/framework/utils"
import { LockTimeoutError } from "../../../../money-path/lock"
import { storeUnavailableCode } from "../unavailable"

describe("storeUnavailableCode: which errors of the store's own infrastructure a plugin store route answers 503 for", () => {
  it.each([
    ["another request holds the order's lock", new LockTimeoutError("payin:pay-again:order_1", 12_000), "payin_busy"],
    ["PostgreSQL shutting down (57P01)", Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }), "payin_store_unavailable"],
    ["the pool's connection refused", Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }), "payin_store_unavailable"],
    ["knex's acquire timeout", new Error("Knex: Timeout acquiring a connection. The pool is probably full."), "payin_store_unavailable"],
    ["a workflow's error wrapping the driver's", Object.assign(new Error("step failed"), { cause: Object.assign(new Error("x"), { code: "08006" }) }), "payin_store_unavailable"],
    ["a plain object (a workflow's serialized error)", { message: "Connection terminated unexpectedly" }, "payin_store_unavailable"],
    ["Medusa could not delete an old payment session (soak seed 1, 50 minutes)", new MedusaError(MedusaError.Types.UNEXPECTED_STATE, "Could not delete all payment sessions"), "payin_store_unavailable"],
  ])("%s → %s", (_what, error, code) => {
    expect(storeUnavailableCode(error)).toBe(code)
  })

  it.each([
    ["a MedusaError (the route's own 4xx)", new MedusaError(MedusaError.Types.NOT_FOUND, "Order not found")],
    ["a unique violation", Object.assign(new Error("duplicate key value violates unique constraint"), { code: "23505" })],
    ["a programming error", new TypeError("Cannot read properties of undefined")],
    ["nothing", undefined],
  ])("%s → left to Medusa's handler", (_what, error) => {
    expect(storeUnavailableCode(error)).toBeNull()
  })
})
