import { clockOffset, formatDuration, startCountdown, timeLeft, type TimeLeft } from "../countdown"

const T0 = Date.parse("2025-03-01T12:00:00.000Z")

describe("timeLeft", () => {
  it("splits the time left into hours, minutes and seconds", () => {
    expect(timeLeft(new Date(T0 + 872_000).toISOString(), T0)).toEqual({ totalSeconds: 872, hours: 0, minutes: 14, seconds: 32, expired: false })
    expect(timeLeft(T0 + 3_725_000, T0)).toMatchObject({ hours: 1, minutes: 2, seconds: 5 })
  })

  it("rounds up so the display reaches zero when the window ends, not a second early", () => {
    expect(timeLeft(T0 + 871_001, T0).totalSeconds).toBe(872)
    expect(timeLeft(T0 + 1, T0)).toMatchObject({ totalSeconds: 1, expired: false })
    expect(timeLeft(T0, T0)).toMatchObject({ totalSeconds: 0, expired: true })
    expect(timeLeft(T0 - 60_000, T0)).toMatchObject({ totalSeconds: 0, expired: true })
  })

  it("corrects for a client clock that is off", () => {
    // The phone is 5 minutes behind the server: without the offset it would show 15 more minutes.
    const serverNow = T0
    const clientNow = T0 - 300_000
    const offset = clockOffset(new Date(serverNow).toISOString(), clientNow)
    expect(offset).toBe(300_000)
    expect(timeLeft(T0 + 600_000, clientNow, offset).totalSeconds).toBe(600)
    expect(timeLeft(T0 + 600_000, clientNow).totalSeconds).toBe(900)
  })

  it("treats an unknown end as not expired and zero", () => {
    expect(timeLeft(null, T0)).toEqual({ totalSeconds: 0, hours: 0, minutes: 0, seconds: 0, expired: false })
    expect(timeLeft("not a date", T0).expired).toBe(false)
  })
})

describe("clockOffset", () => {
  it("is the server clock minus the client clock", () => {
    expect(clockOffset("2025-03-01T12:00:10.000Z", T0)).toBe(10_000)
    expect(clockOffset("2025-03-01T11:59:58.500Z", T0)).toBe(-1_500)
  })
  it("is 0 for an invalid server time", () => {
    expect(clockOffset("yesterday", T0)).toBe(0)
    expect(clockOffset(null, T0)).toBe(0)
  })
})

describe("formatDuration", () => {
  it.each([
    [0, "00:00"],
    [9, "00:09"],
    [59, "00:59"],
    [872, "14:32"],
    [3599, "59:59"],
    [3600, "1:00:00"],
    [3725, "1:02:05"],
    [36_000, "10:00:00"],
    [-5, "00:00"],
    [Number.NaN, "00:00"],
    [61.9, "01:01"],
  ])("%p s → %p", (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text)
  })
})

describe("startCountdown", () => {
  beforeEach(() => {
    jest.useFakeTimers()
    jest.setSystemTime(T0)
  })
  afterEach(() => jest.useRealTimers())

  it("ticks at once, then on each second boundary of the countdown, then expires once", () => {
    const ticks: [number, number][] = []
    const onExpire = jest.fn()
    startCountdown(T0 + 2_500, (left: TimeLeft) => ticks.push([Date.now() - T0, left.totalSeconds]), { onExpire })
    jest.advanceTimersByTime(10_000)
    expect(ticks).toEqual([
      [0, 3],
      [500, 2],
      [1_500, 1],
      [2_500, 0],
    ])
    expect(onExpire).toHaveBeenCalledTimes(1)
    expect(jest.getTimerCount()).toBe(0)
  })

  it("uses the clock offset", () => {
    const ticks: number[] = []
    // Server is 2 s ahead: a window ending at T0 + 3 s has 1 s left.
    startCountdown(T0 + 3_000, (left) => ticks.push(left.totalSeconds), { clockOffsetMs: 2_000 })
    jest.advanceTimersByTime(5_000)
    expect(ticks).toEqual([1, 0])
  })

  it("expires at once when the window is already over", () => {
    const onExpire = jest.fn()
    const onTick = jest.fn()
    startCountdown(new Date(T0 - 1).toISOString(), onTick, { onExpire })
    expect(onTick).toHaveBeenCalledWith(expect.objectContaining({ totalSeconds: 0, expired: true }))
    expect(onExpire).toHaveBeenCalledTimes(1)
  })

  it("stops when asked", () => {
    const onTick = jest.fn()
    const onExpire = jest.fn()
    const stop = startCountdown(T0 + 10_000, onTick, { onExpire })
    jest.advanceTimersByTime(2_000)
    stop()
    jest.advanceTimersByTime(20_000)
    expect(onTick).toHaveBeenCalledTimes(3)
    expect(onExpire).not.toHaveBeenCalled()
  })

  it("ticks once and schedules nothing for an unknown end", () => {
    const onTick = jest.fn()
    startCountdown(null, onTick)
    expect(onTick).toHaveBeenCalledTimes(1)
    expect(jest.getTimerCount()).toBe(0)
  })
})
