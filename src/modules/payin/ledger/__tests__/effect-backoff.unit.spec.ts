import { EFFECT_RETRY_MAX_SECONDS, effectRetryDelaySeconds } from "../rows"

describe("effectRetryDelaySeconds", () => {
  it("waits 30 s after the first failure, doubling after each further one, at most an hour", () => {
    const middle = () => 0.5 // no jitter
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => effectRetryDelaySeconds(n, middle))).toEqual([30, 60, 120, 240, 480, 960, 1920, 3600, 3600])
    expect(effectRetryDelaySeconds(1_000, middle)).toBe(EFFECT_RETRY_MAX_SECONDS)
  })

  it("spreads retries by ±25 %, never past the cap", () => {
    expect(effectRetryDelaySeconds(1, () => 0)).toBe(23)
    expect(effectRetryDelaySeconds(1, () => 0.999)).toBe(37)
    expect(effectRetryDelaySeconds(2, () => 0)).toBe(45)
    expect(effectRetryDelaySeconds(8, () => 0)).toBe(2700)
    expect(effectRetryDelaySeconds(8, () => 0.999)).toBe(3600)
  })
})
