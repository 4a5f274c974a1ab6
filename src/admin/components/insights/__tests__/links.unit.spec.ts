import { FIGURE_FILTERS, figureLink, formatSeconds, formatShare, lastDays, listLink } from "../links"

const period = { from: "2026-11-01", to: "2026-11-30", providerId: "pp_payin_default" }

describe("insights links", () => {
  it("each figure leads to the transactions of the period with its own filter", () => {
    expect(figureLink(period, "paid")).toBe("/payin?created_from=2026-11-01&created_to=2026-11-30&provider_id=pp_payin_default&paid=true")
    expect(figureLink(period, "ended_unpaid")).toBe("/payin?created_from=2026-11-01&created_to=2026-11-30&provider_id=pp_payin_default&status=canceled&paid=false")
    expect(figureLink(period, "stray")).toBe(
      "/payin?created_from=2026-11-01&created_to=2026-11-30&provider_id=pp_payin_default&flag=stray_payment%2Clate_payment"
    )
    expect(figureLink({ from: "2026-11-01", to: "2026-11-01" }, "created")).toBe("/payin?created_from=2026-11-01&created_to=2026-11-01")
    expect(figureLink(period, "open")).toBe("/payin?created_from=2026-11-01&created_to=2026-11-30&provider_id=pp_payin_default&status=creating%2Cactive&paid=false")
    expect(figureLink(period, "disputed_unpaid")).toBe(
      "/payin?created_from=2026-11-01&created_to=2026-11-30&provider_id=pp_payin_default&status=dispute%2Cchecking%2Cre_calculation&paid=false"
    )
    expect(figureLink(period, "pay_again_paid")).toBeNull()
    // ever in a dispute: the list has no filter for it (the status filter would show only those in one now)
    expect(figureLink(period, "disputed")).toBeNull()
    expect(listLink(period, { bank: "vtb", paid: "true" })).toContain("bank=vtb&paid=true")
    // every filter is one the list API takes
    for (const filter of Object.values(FIGURE_FILTERS)) {
      for (const key of Object.keys(filter)) expect(["status", "flag", "paid"]).toContain(key)
    }
  })

  it("formats durations, shares and periods", () => {
    expect([formatSeconds(42), formatSeconds(250), formatSeconds(7_500), formatSeconds(273_600), formatSeconds(null)]).toEqual([
      "42 s",
      "4 min 10 s",
      "2 h 5 min",
      "3 d 4 h",
      "—",
    ])
    expect(formatShare(0.5234)).toBe("52.3%")
    expect(formatShare(null)).toBe("—")
    expect(lastDays(30, new Date("2026-11-27T10:00:00Z"))).toEqual({ from: "2026-10-29", to: "2026-11-27" })
    expect(lastDays(1, new Date("2026-11-27T23:59:00Z"))).toEqual({ from: "2026-11-27", to: "2026-11-27" })
  })
})
