import { capturedWith, sessionOf } from "../payment-cradle"

const captureService = (amounts: unknown[]) => ({
  retrieve: async (id: string) => (id === "capt_new" ? { payment_id: "pay_1" } : Promise.reject(new Error("not found"))),
  list: async () => amounts.map((amount, i) => ({ id: `capt_${i}`, amount: Number((amount as { value?: string }).value ?? amount), raw_amount: amount })),
})

describe("capturedWith: the captures of the payment being captured, the new one included", () => {
  it("sums Medusa's raw amounts exactly", async () => {
    const cradle = { captureService: captureService([{ value: "0.1", precision: 20 }, { value: "0.2", precision: 20 }, { value: "1790.00000", precision: 20 }]) }
    expect(await capturedWith(cradle, "capt_new")).toBe("1790.3")
  })

  it("is null when the capture, the service or an amount is missing: the capture is then refused", async () => {
    expect(await capturedWith({ captureService: captureService([{ value: "1" }]) }, "capt_other")).toBeNull()
    expect(await capturedWith({ captureService: captureService([{ value: "1" }]) }, undefined)).toBeNull()
    expect(await capturedWith({}, "capt_new")).toBeNull()
    expect(await capturedWith({ captureService: captureService([{ value: "1" }, { value: "n/a" }]) }, "capt_new")).toBeNull()
  })
})

describe("sessionOf", () => {
  it("reads the session's exact amount, currency and collection; null when it cannot be read", async () => {
    const sessions = (answer: () => Promise<unknown>) => ({ paymentSessionService: { retrieve: answer } })
    const stored = { id: "payses_1", amount: 1790, raw_amount: { value: "1790.5", precision: 20 }, currency_code: "rub", payment_collection_id: "pay_col_1" }
    expect(await sessionOf(sessions(async () => stored), "payses_1")).toEqual({
      id: "payses_1",
      amount: "1790.5",
      currency_code: "rub",
      payment_collection_id: "pay_col_1",
    })
    expect(await sessionOf(sessions(async () => Promise.reject(new Error("gone"))), "payses_1")).toBeNull()
    expect(await sessionOf({}, "payses_1")).toBeNull()
    // an awilix cradle throws for a name it does not hold
    const cradle = new Proxy({}, { get: () => { throw new Error("AwilixResolutionError") } })
    expect(await sessionOf(cradle, "payses_1")).toBeNull()
  })
})
