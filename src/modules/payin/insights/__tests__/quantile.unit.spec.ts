import { quantile } from "../insights"

describe("time to pay from the rollups' histogram", () => {
  it("interpolates inside the bucket the quantile falls in", () => {
    const buckets = [
      { start: 0, end: 15, count: 2 },
      { start: 15, end: 30, count: 2 },
      { start: 60, end: 75, count: 4 },
    ]
    expect(quantile(buckets, 0.5)).toBe(30) // rank 4: the end of the second bucket
    expect(quantile(buckets, 0.25)).toBe(15)
    expect(quantile(buckets, 0.9)).toBe(72) // rank 7.2: 3.2 of 4 into [60, 75), 60 + 0.8 × 15
    expect(quantile([], 0.5)).toBeNull()
    expect(quantile([{ start: 0, end: 15, count: 0 }], 0.5)).toBeNull()
  })

  it("answers the start of the open last bucket (a month and more)", () => {
    expect(quantile([{ start: 30 * 86_400, end: 2_147_483_647, count: 3 }], 0.9)).toBe(30 * 86_400)
  })
})
