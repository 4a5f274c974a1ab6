import type { Insights } from "../../../lib/insights-api"
import { dailySeries } from "../charts"

const day = (d: string, received_amount: Record<string, string>) => ({ day: d, created: 1, paid: 1, received: 1, received_amount })

describe("the received-per-day chart", () => {
  it("draws the currency money arrived in on the most days, not the first one a shopper paid in once", () => {
    const amounts = { eur: { paid: "20", underpaid: "0", overpaid: "0", stray: "20", received: "20" }, rub: { paid: "3000", underpaid: "0", overpaid: "0", stray: "0", received: "3000" } }
    const figures = {
      from: "2026-11-01",
      to: "2026-11-03",
      amounts,
      days: [day("2026-11-01", { rub: "1000" }), day("2026-11-02", { eur: "20", rub: "2000" })],
    } as unknown as Insights
    expect(dailySeries(figures)).toMatchObject({ currency: "rub", amounts: [1000, 2000, 0] })
    // no money yet: the first currency, every day at 0
    expect(dailySeries({ ...figures, days: [] })).toMatchObject({ currency: "eur", amounts: [0, 0, 0] })
    expect(dailySeries({ ...figures, amounts: {}, days: [] })).toMatchObject({ currency: null, amounts: [0, 0, 0] })
  })
})
