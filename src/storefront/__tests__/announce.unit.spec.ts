import { payinMessages } from "../messages"
import { countdownAnnouncement, countdownAnnouncer } from "../react/announce"

/** What a screen reader would hear over a countdown from `from` down to 0, one call per second. */
function heard(from: number, words = payinMessages.en.timeLeftWords): string[] {
  const announce = countdownAnnouncer(words)
  const out: string[] = []
  for (let s = from; s >= 0; s--) {
    const said = announce(s)
    if (said) out.push(said)
  }
  return out
}

describe("countdownAnnouncement (the step the time left falls in)", () => {
  it("steps by 30 minutes above an hour, 5 minutes above 10 minutes, a minute below", () => {
    expect(countdownAnnouncement(7200)).toEqual({ mark: 7200, seconds: 7200 })
    expect(countdownAnnouncement(3601)).toEqual({ mark: 5400, seconds: 3600 })
    expect(countdownAnnouncement(3600)).toEqual({ mark: 3600, seconds: 3600 })
    expect(countdownAnnouncement(872)).toEqual({ mark: 900, seconds: 840 })
    expect(countdownAnnouncement(601)).toEqual({ mark: 900, seconds: 600 })
    expect(countdownAnnouncement(600)).toEqual({ mark: 600, seconds: 600 })
    expect(countdownAnnouncement(599)).toEqual({ mark: 600, seconds: 540 })
    expect(countdownAnnouncement(61)).toEqual({ mark: 120, seconds: 60 })
  })

  it("says the exact seconds in the last minute, at 60, 30 and 10", () => {
    expect(countdownAnnouncement(60)).toEqual({ mark: 60, seconds: 60 })
    expect(countdownAnnouncement(31)).toEqual({ mark: 60, seconds: 31 })
    expect(countdownAnnouncement(30)).toEqual({ mark: 30, seconds: 30 })
    expect(countdownAnnouncement(11)).toEqual({ mark: 30, seconds: 11 })
    expect(countdownAnnouncement(10)).toEqual({ mark: 10, seconds: 10 })
    expect(countdownAnnouncement(1)).toEqual({ mark: 10, seconds: 1 })
  })

  it("is nothing once the window is over or for nonsense", () => {
    expect(countdownAnnouncement(0)).toBeNull()
    expect(countdownAnnouncement(-5)).toBeNull()
    expect(countdownAnnouncement(Number.NaN)).toBeNull()
  })
})

describe("countdownAnnouncer (what the live region says, and when)", () => {
  it("announces a 15-minute window 12 times, not 900", () => {
    expect(heard(900)).toEqual([
      "10 minutes left",
      "9 minutes left",
      "8 minutes left",
      "7 minutes left",
      "6 minutes left",
      "5 minutes left",
      "4 minutes left",
      "3 minutes left",
      "2 minutes left",
      "1 minute left",
      "30 seconds left",
      "10 seconds left",
    ])
    // the first value (the page just opened) is shown, not announced
    expect(heard(900)).not.toContain("15 minutes left")
  })

  it("announces every 5 minutes above 10 and every 30 above an hour, in Russian too", () => {
    expect(heard(2 * 3600).slice(0, 4)).toEqual(["1 hour 30 minutes left", "1 hour left", "55 minutes left", "50 minutes left"])
    expect(heard(1000, payinMessages.ru.timeLeftWords).slice(0, 2)).toEqual(["До конца оплаты 15 минут", "До конца оплаты 10 минут"])
  })

  it("says whole minutes when a tick was skipped (a throttled tab) and nothing at zero", () => {
    const announce = countdownAnnouncer(payinMessages.en.timeLeftWords)
    expect(announce(700)).toBeNull()
    expect(announce(575)).toBe("9 minutes left")
    expect(announce(570)).toBeNull()
    expect(announce(25)).toBe("25 seconds left")
    expect(announce(0)).toBeNull()
  })
})
