import { NOTIFICATION_MAX_ATTEMPTS, notificationRetryDelaySeconds } from "../log"

describe("notification retry backoff", () => {
  it("waits a minute after the first failure, doubling, at most an hour", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(notificationRetryDelaySeconds)).toEqual([60, 120, 240, 480, 960, 1920, 3600, 3600])
  })
  it("gives up after a bounded number of attempts spread over hours, not seconds", () => {
    const total = Array.from({ length: NOTIFICATION_MAX_ATTEMPTS - 1 }, (_, i) => notificationRetryDelaySeconds(i + 1)).reduce((a, b) => a + b, 0)
    expect(total).toBeGreaterThan(3600)
    expect(NOTIFICATION_MAX_ATTEMPTS).toBeLessThanOrEqual(10)
  })
})
