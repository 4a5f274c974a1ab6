import fc from "fast-check"
import { FaultInjector, FaultListSchema, faultRouteOf } from "../faults"
import { ExpiryHeap } from "../heap"
import { escapeHtml, formatAmountForLocale, formatDuration, pickLocale } from "../page"
import { seededRandom, shuffle } from "../random"
import { nextStatus, TRANSITIONS } from "../transitions"
import { Whitelist, whitelistError } from "../whitelist"
import { SandboxClock } from "../clock"
import { applyMerchantPatch, defaultMerchant, publicMerchant } from "../merchant"

describe("transitions", () => {
  it("allows exactly the documented moves", () => {
    expect(nextStatus("active", "pay")).toBe("closed")
    expect(nextStatus("active", "expire")).toBe("canceled")
    expect(nextStatus("canceled", "dispute")).toBe("dispute")
    expect(nextStatus("dispute", "checking")).toBe("checking")
    expect(nextStatus("checking", "recalculate")).toBe("re_calculation")
    expect(nextStatus("re_calculation", "close")).toBe("closed")
    expect(nextStatus("closed", "pay")).toBeNull()
    // A paid transaction can be disputed (closed -> dispute), and that is the only way out of closed.
    expect(nextStatus("closed", "dispute")).toBe("dispute")
    expect(nextStatus("re_calculation", "checking")).toBeNull()
    for (const action of Object.keys(TRANSITIONS) as (keyof typeof TRANSITIONS)[]) {
      if (action !== "dispute") expect(nextStatus("closed", action)).toBeNull()
    }
    // canceled is left only by a dispute too.
    for (const action of Object.keys(TRANSITIONS) as (keyof typeof TRANSITIONS)[]) {
      expect(nextStatus("canceled", action)).toBe(action === "dispute" ? "dispute" : null)
    }
  })
})

describe("whitelist", () => {
  it("matches IPv4, IPv6, CIDR and IPv4-mapped peers", () => {
    const list = new Whitelist(["192.0.2.10", "10.0.0.0/8", "2001:db8::/32", "::1"])
    expect(list.allows("192.0.2.10")).toBe(true)
    expect(list.allows("::ffff:192.0.2.10")).toBe(true)
    expect(list.allows("10.200.3.4")).toBe(true)
    expect(list.allows("11.0.0.1")).toBe(false)
    expect(list.allows("2001:db8:1::5")).toBe(true)
    expect(list.allows("2001:db9::5")).toBe(false)
    expect(list.allows("::1")).toBe(true)
    expect(list.allows(undefined)).toBe(false)
    expect(new Whitelist([]).allows("203.0.113.1")).toBe(true)
  })

  it("reports invalid entries", () => {
    expect(whitelistError(["1.2.3.4", "::/0"])).toBeNull()
    for (const bad of ["1.2.3", "1.2.3.4/40", "::1/200", "host", "1.2.3.4/-1"]) expect(whitelistError([bad])).not.toBeNull()
  })
})

describe("faults", () => {
  it("maps service paths to routes", () => {
    expect(faultRouteOf("POST", "/payment/trading/pay-in")).toBe("POST /payment/trading/pay-in")
    expect(faultRouteOf("GET", "/payment/trading/external/abc")).toBe("GET /payment/trading/external/{id}")
    expect(faultRouteOf("GET", "/payment/trading/abc")).toBe("GET /payment/trading/{id}")
    expect(faultRouteOf("GET", "/payment/trading/banks")).toBe("GET /payment/trading/banks")
    expect(faultRouteOf("DELETE", "/payment/trading/abc")).toBeNull()
  })

  it("counts down next-N faults and honours probability", () => {
    const faults = new FaultInjector(seededRandom(1))
    faults.set(FaultListSchema.parse([{ route: "GET /payment/trading/banks", status: 500, count: 2 }]))
    expect(faults.take("GET /payment/trading/currency")).toBeUndefined()
    expect(faults.take("GET /payment/trading/banks")?.status).toBe(500)
    expect(faults.take("GET /payment/trading/banks")?.status).toBe(500)
    expect(faults.take("GET /payment/trading/banks")).toBeUndefined()
    faults.set(FaultListSchema.parse({ faults: [{ status: 503, probability: 0.25 }] }))
    let hits = 0
    for (let i = 0; i < 4000; i++) if (faults.take("POST /payment/trading/pay-in")) hits++
    expect(hits).toBeGreaterThan(800)
    expect(hits).toBeLessThan(1200)
    faults.clear()
    expect(faults.list()).toEqual([])
  })
})

describe("page helpers", () => {
  it("escapes every HTML-significant character", () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const out = escapeHtml(s)
        expect(out).not.toMatch(/[<>"'`]/)
        expect(out.replace(/&(amp|lt|gt|quot|#39|#96);/g, "")).not.toContain("&")
      })
    )
  })

  it("formats amounts and durations per locale", () => {
    expect(formatAmountForLocale(123456789, "en")).toBe("1,234,567.89")
    expect(formatAmountForLocale(123456789, "ru")).toBe("1\u00a0234\u00a0567,89")
    expect(formatAmountForLocale(5, "en")).toBe("0.05")
    expect(formatDuration(899.9)).toBe("14:59")
    expect(formatDuration(3725)).toBe("1:02:05")
    expect(formatDuration(-3)).toBe("00:00")
    expect(pickLocale("RU")).toBe("ru")
    expect(pickLocale("ru-RU")).toBe("ru")
    expect(pickLocale("EN")).toBe("en")
    expect(pickLocale(undefined)).toBe("en")
    expect(pickLocale("de")).toBe("en")
  })
})

describe("heap, random, clock, merchant", () => {
  it("pops in ascending order", () => {
    fc.assert(
      fc.property(fc.array(fc.integer()), (values) => {
        const heap = new ExpiryHeap()
        values.forEach((v, i) => heap.push(v, String(i)))
        const out: number[] = []
        for (let top = heap.pop(); top; top = heap.pop()) out.push(top.at)
        expect(out).toEqual([...values].sort((a, b) => a - b))
      })
    )
  })

  it("shuffles into a permutation, reproducibly with a seed", () => {
    const items = Array.from({ length: 20 }, (_, i) => i)
    const a = shuffle([...items], seededRandom(5))
    expect([...a].sort((x, y) => x - y)).toEqual(items)
    expect(shuffle([...items], seededRandom(5))).toEqual(a)
    expect(a).not.toEqual(items)
  })

  it("moves the clock forward only", () => {
    const clock = new SandboxClock()
    const before = clock.now()
    clock.advance(60)
    expect(clock.offsetMs).toBe(60_000)
    expect(clock.now() - before).toBeGreaterThanOrEqual(60_000)
    expect(() => clock.advance(-1)).toThrow()
  })

  it("patches merchant settings and hides the key", () => {
    const next = applyMerchantPatch(defaultMerchant(), { apiKey: "k", paymentWindowSeconds: 60, successUrl: null })
    expect(next.paymentWindowSeconds).toBe(60)
    expect(next.apiKey).toBe("k")
    expect(defaultMerchant().paymentWindowSeconds).toBe(900)
    expect("apiKey" in publicMerchant(next)).toBe(false)
  })
})
