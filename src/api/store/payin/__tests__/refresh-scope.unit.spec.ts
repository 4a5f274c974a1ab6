import { LookupThrottle, dueForLookup } from "../refresh"
import { chooseProvider, inSalesChannels, pickCurrentRow } from "../scope"
import { banksQuerySchema, statusQuerySchema } from "../validators"
import { zodFields } from "../../../../modules/payin/settings/overrides"

const NOW = new Date("2025-01-01T12:00:00.000Z")
const ago = (s: number) => new Date(NOW.getTime() - s * 1000)

describe("dueForLookup", () => {
  it("looks up an open pay-in whose window passed or that is older than reconcileAfterSeconds", () => {
    expect(dueForLookup({ created_at: ago(10), expires_at: ago(1) }, false, NOW, 120)).toBe(true)
    expect(dueForLookup({ created_at: ago(121), expires_at: ago(-500) }, false, NOW, 120)).toBe(true)
    expect(dueForLookup({ created_at: ago(10), expires_at: ago(-500) }, false, NOW, 120)).toBe(false)
    expect(dueForLookup({ created_at: ago(0), expires_at: ago(-500) }, false, NOW, 0)).toBe(true)
    expect(dueForLookup({ created_at: ago(10).toISOString(), expires_at: null }, false, NOW, 5)).toBe(true)
  })

  it("never looks up a final pay-in", () => {
    expect(dueForLookup({ created_at: ago(9999), expires_at: ago(9000) }, true, NOW, 0)).toBe(false)
  })
})

describe("LookupThrottle", () => {
  it("allows one lookup per pay-in per interval", () => {
    const throttle = new LookupThrottle(15_000)
    expect(throttle.tryAcquire("a", 0)).toBe(true)
    expect(throttle.tryAcquire("a", 14_999)).toBe(false)
    expect(throttle.tryAcquire("b", 14_999)).toBe(true)
    expect(throttle.tryAcquire("a", 15_000)).toBe(true)
  })

  it("stays bounded, evicting the oldest lookups", () => {
    const throttle = new LookupThrottle(15_000, 3)
    for (const [i, id] of ["a", "b", "c", "d", "e"].entries()) throttle.tryAcquire(id, i)
    expect(throttle.size).toBe(3)
    expect(throttle.tryAcquire("a", 10)).toBe(true) // forgotten
    expect(throttle.tryAcquire("e", 10)).toBe(false) // still remembered
  })
})

describe("inSalesChannels", () => {
  it("restricts to the key's channels when it has any", () => {
    expect(inSalesChannels("sc_1", ["sc_1", "sc_2"])).toBe(true)
    expect(inSalesChannels("sc_3", ["sc_1"])).toBe(false)
    expect(inSalesChannels(null, ["sc_1"])).toBe(false)
    expect(inSalesChannels("sc_3", [])).toBe(true)
    expect(inSalesChannels(null, undefined)).toBe(true)
  })
})

describe("pickCurrentRow", () => {
  it("takes the newest live row, else the newest", () => {
    const rows = [
      { id: "a", created_at: ago(30), session_deleted_at: null },
      { id: "b", created_at: ago(20), session_deleted_at: ago(5) },
      { id: "c", created_at: ago(40), session_deleted_at: null },
    ]
    expect(pickCurrentRow(rows)?.id).toBe("a")
    expect(pickCurrentRow([rows[1], { ...rows[0], session_deleted_at: ago(1) }])?.id).toBe("b")
    expect(pickCurrentRow([rows[0], rows[0]])?.id).toBe("a")
    expect(pickCurrentRow([])).toBeNull()
  })
})

describe("chooseProvider", () => {
  const configured = ["pp_payin_second", "pp_payin_default", "pp_payin_third"]
  const base = { configured, defaultId: "pp_payin_default" }

  it("takes the requested instance when it is configured", () => {
    expect(chooseProvider({ ...base, requested: "pp_payin_third" })).toEqual({ providerId: "pp_payin_third", enabledInRegion: true })
    expect(chooseProvider({ ...base, requested: "pp_system_default" }).providerId).toBeNull()
    expect(chooseProvider({ ...base, requested: "pp_payin_third", regionProviders: ["pp_payin_default"] })).toEqual({
      providerId: "pp_payin_third",
      enabledInRegion: false,
    })
  })

  it("defaults to the region's pay-in provider (pp_payin_default first), then pp_payin_default, then the first", () => {
    expect(chooseProvider({ ...base, regionProviders: ["pp_system_default", "pp_payin_third", "pp_payin_default"] }).providerId).toBe("pp_payin_default")
    expect(chooseProvider({ ...base, regionProviders: ["pp_payin_third", "pp_payin_second"] }).providerId).toBe("pp_payin_second")
    expect(chooseProvider({ ...base, regionProviders: ["pp_system_default"] })).toEqual({ providerId: "pp_payin_default", enabledInRegion: false })
    expect(chooseProvider(base)).toEqual({ providerId: "pp_payin_default", enabledInRegion: true })
    expect(chooseProvider({ configured: ["pp_payin_x"], defaultId: "pp_payin_default" }).providerId).toBe("pp_payin_x")
    expect(chooseProvider({ configured: [], defaultId: "pp_payin_default" }).providerId).toBeNull()
  })
})

describe("query validation", () => {
  const fields = (schema: typeof banksQuerySchema | typeof statusQuerySchema, input: unknown) => {
    const result = schema.safeParse(input)
    return result.success ? result.data : zodFields(result.error)
  }

  it("banks: exactly one of cart_id or currency_code; codes upper-cased", () => {
    expect(fields(banksQuerySchema, { currency_code: "kzt" })).toEqual({ currency_code: "KZT" })
    expect(fields(banksQuerySchema, { cart_id: "cart_1", provider_id: "pp_payin_default" })).toEqual({ cart_id: "cart_1", provider_id: "pp_payin_default" })
    expect(fields(banksQuerySchema, {})).toEqual([
      { path: "cart_id", message: "cart_id or currency_code is required" },
      { path: "currency_code", message: "cart_id or currency_code is required" },
    ])
    expect(fields(banksQuerySchema, { cart_id: "c", currency_code: "rub" })).toEqual([
      { path: "cart_id", message: "give only one of cart_id or currency_code" },
      { path: "currency_code", message: "give only one of cart_id or currency_code" },
    ])
    expect(fields(banksQuerySchema, { currency_code: "rubles" })).toEqual([
      { path: "currency_code", message: "currency_code must be a 3-letter ISO 4217 code such as rub" },
    ])
    expect(fields(banksQuerySchema, { currency_code: ["rub", "kzt"] })).toEqual([
      { path: "currency_code", message: "currency_code must be a single 3-letter code" },
    ])
    expect(fields(banksQuerySchema, { currency_code: "rub", limit: "1" })).toEqual([{ path: "", message: "unknown field(s): limit" }])
  })

  it("status: exactly one of cart_id or order_id", () => {
    expect(fields(statusQuerySchema, { order_id: "order_1" })).toEqual({ order_id: "order_1" })
    expect(fields(statusQuerySchema, { cart_id: "" })).toEqual([{ path: "cart_id", message: "cart_id must not be empty" }])
    expect((fields(statusQuerySchema, { cart_id: "a", order_id: "b" }) as { path: string }[]).map((f) => f.path)).toEqual(["cart_id", "order_id"])
  })
})
