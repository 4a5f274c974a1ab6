// Insights (issue 26): the daily rollups follow every ledger write (a trigger in the writing
// transaction) and agree with a full scan of the ledger; GET /admin/payin/insights answers the
// figures (JSON and CSV) that this spec computes independently from the ledger's rows; the
// rebuild command goes on after a stop and prints its progress. Real Medusa, PostgreSQL, sandbox.
import rebuildInsights from "../../src/scripts/rebuild-insights"
import type { Insights } from "../../src/modules/payin/insights/insights"
import { parseCsv } from "../support/csv"
import { storeSpec } from "../support/harness"
import { control, payinsOfSession } from "../support/sandbox"

jest.setTimeout(240_000)
process.env.PAYIN_ENCRYPTION_KEY ??= "insights-encryption-secret-0123456789"

const KEY = "insights-key-0123456789"

storeSpec({ key: KEY, reloadSettings: true }, (h) => {
  const { api, getContainer, deliver, payin } = h
  const today = () => new Date().toISOString().slice(0, 10)
  const insights = async (query = ""): Promise<Insights> => (await api.get(`/admin/payin/insights?from=${today()}&to=${today()}${query}`, h.admin)).data

  /** A store day: paid, underpaid after a dispute, expired, a stray payment, pay again saved one. */
  async function storeDay() {
    const { sandbox, shop } = h
    await api.post("/admin/payin/settings/default", { payAgain: { enabled: true, graceHours: 2 } }, h.admin)
    const paid = await h.placedOrder()
    await control(sandbox, "POST", `/_sandbox/transactions/${paid.payin.id}/pay`)
    const under = await h.placedOrder()
    await control(sandbox, "POST", `/_sandbox/transactions/${under.payin.id}/dispute`)
    await control(sandbox, "POST", `/_sandbox/transactions/${under.payin.id}/recalculate`, { fiatAmount: "1000.00" })
    await control(sandbox, "POST", `/_sandbox/transactions/${under.payin.id}/close`)
    await deliver()
    // a cart changed after its first pay-in, which the shopper paid all the same: a stray payment
    const cartId = await shop.cart()
    const old = await shop.session(cartId, "pp_payin_default")
    await shop.addItem(cartId)
    await shop.session(cartId, "pp_payin_default")
    await shop.complete(cartId)
    const [strayPayin] = payinsOfSession(sandbox, old.id)
    await control(sandbox, "POST", `/_sandbox/transactions/${strayPayin.id}/pay`)
    await deliver()
    // pay again: an order that waits, gets new details and is paid; the clock then ends the rest
    const again = await h.placedOrder()
    await control(sandbox, "POST", "/_sandbox/clock/advance", { seconds: 901 })
    await deliver()
    expect((await shop.payAgain({ order_id: again.orderId })).status).toBe(200)
    const fresh = (await h.ledger.rows({ order_id: again.orderId })).find((r: any) => r.session_id !== again.session.id)
    await control(sandbox, "POST", `/_sandbox/transactions/${fresh.service_id}/pay`)
    await deliver()
  }

  /** The figures computed here from the ledger's rows, as the page should show them. */
  async function expectedFromRows() {
    const rows = (await h.ledger.rows({}, { take: 10_000 })) as any[]
    const num = (v: unknown) => Number(v ?? 0)
    const count = (f: (r: any) => boolean) => rows.filter(f).length
    const paid = (r: any) => Boolean(r.paid_at)
    const flagged = (r: any, flag: string) => Boolean(r.flags?.[flag])
    const keys = (k: "bank" | "method") => [...new Set(rows.map((r) => r[k] ?? ""))]
    const conversion = (k: "bank" | "method") =>
      keys(k).map((key) => {
        const of = rows.filter((r) => (r[k] ?? "") === key)
        const offered = of.filter((r) => r.service_id).length
        const p = of.filter(paid).length
        return { key, offered, paid: p, ended_unpaid: of.filter((r) => !paid(r) && r.status === "canceled").length, conversion: offered ? p / offered : null }
      })
    const sum = (f: (r: any) => number) => rows.reduce((s, r) => s + f(r), 0)
    return {
      totals: {
        created: rows.length,
        offered: count((r) => r.service_id),
        failed: count((r) => r.status === "failed"),
        paid: count(paid),
        ended_unpaid: count((r) => !paid(r) && r.status === "canceled"),
        open: count((r) => !paid(r) && ["creating", "active"].includes(r.status)),
        disputed: count((r) => r.disputed_at),
        underpaid: count((r) => flagged(r, "underpayment")),
        overpaid: count((r) => flagged(r, "overpayment")),
        stray: count((r) => flagged(r, "stray_payment") || flagged(r, "late_payment")),
        pay_again_started: count((r) => r.pay_again_started),
        pay_again_created: count((r) => r.via_pay_again),
        pay_again_paid: count((r) => r.via_pay_again && paid(r)),
      },
      received: sum((r) => (paid(r) ? num(r.fiat_amount) : 0)),
      underpaidAmount: sum((r) => num(r.flags?.underpayment?.missing_amount)),
      strayAmount: sum((r) => (flagged(r, "stray_payment") || flagged(r, "late_payment") ? num(r.fiat_amount) : 0)),
      byBank: conversion("bank"),
      byMethod: conversion("method"),
      rows,
    }
  }

  it("the rollups follow every write: the figures are the ledger's, in JSON and CSV, and agree with a full scan", async () => {
    await storeDay()
    const expected = await expectedFromRows()
    const figures = await insights()
    expect(figures.totals).toEqual(expected.totals)
    // what this day had: every kind of outcome the page shows
    expect(figures.totals).toMatchObject({ paid: 4, underpaid: 1, disputed: 1, stray: 1, pay_again_started: 1, pay_again_created: 1, pay_again_paid: 1 })
    expect(figures.totals.ended_unpaid).toBeGreaterThanOrEqual(1)
    expect(Number(figures.amounts.rub.received)).toBe(expected.received)
    expect(Number(figures.amounts.rub.paid)).toBe(expected.received)
    expect(Number(figures.amounts.rub.underpaid)).toBe(expected.underpaidAmount)
    expect(Number(figures.amounts.rub.stray)).toBe(expected.strayAmount)
    const byKey = (list: { key: string }[]) => [...list].sort((a, b) => a.key.localeCompare(b.key))
    expect(byKey(figures.by_bank)).toEqual(byKey(expected.byBank))
    expect(byKey(figures.by_method)).toEqual(byKey(expected.byMethod))
    expect(figures.conversion).toBe(expected.totals.paid / expected.totals.offered)
    expect(figures.pay_again.saved_share).toBe(1)
    expect(figures.time_to_pay.count).toBe(expected.totals.paid)
    // every payment here came within its first window (15 min): the quantiles are within it
    expect(figures.time_to_pay.p50_seconds).toBeGreaterThanOrEqual(0)
    expect(figures.time_to_pay.p90_seconds!).toBeLessThanOrEqual(1_800)
    expect(figures.days).toEqual([
      { day: today(), created: expected.totals.created, paid: expected.totals.paid, received: expected.totals.paid, received_amount: { rub: figures.amounts.rub.received } },
    ])
    expect(figures.rebuild).toMatchObject({ pending: false })
    expect(await payin().rollups.check()).toEqual({ agree: true, differences: 0, rows: expected.rows.length })

    // another instance's figures: none of these
    expect((await insights("&provider_id=pp_payin_other")).totals.created).toBe(0)
    // the same figures as CSV
    const csv = await api.get(`/admin/payin/insights?from=${today()}&to=${today()}&format=csv`, h.admin)
    expect(csv.headers["content-type"]).toMatch(/^text\/csv/)
    const lines = parseCsv(csv.data)
    expect(lines[0]).toEqual(["section", "key", "metric", "value"])
    const value = (section: string, key: string, metric: string) => lines.find((l) => l[0] === section && l[1] === key && l[2] === metric)?.[3]
    expect(value("funnel", "", "paid")).toBe(String(expected.totals.paid))
    expect(value("amount", "rub", "received")).toBe(figures.amounts.rub.received)
    expect(value("pay_again", "", "saved_share")).toBe("1")
    // refused queries
    for (const query of ["from=2026-13-01", "from=2026-01-02&to=2026-01-01", "from=2020-01-01&to=2026-01-01", "format=xml", "other=1"]) {
      const res = await api.get(`/admin/payin/insights?${query}`, h.admin).catch((e: any) => e.response)
      expect([query, res.status]).toEqual([query, 400])
    }
  })

  it("the rebuild goes on after a stop, prints its progress and ends with the same rollups", async () => {
    await storeDay()
    const before = await insights()
    await payin().rollups.restart()
    expect(await payin().rollups.batch(3)).toBe(3)
    const partial = await insights()
    expect(partial.rebuild).toMatchObject({ pending: true, done: 3 })
    expect(partial.totals.created).toBe(3)
    // a pay-in written while the rebuild runs is left to it (no double count)
    await h.placedOrder()
    const lines: string[] = []
    const write = process.stdout.write
    process.stdout.write = ((chunk: string, ...rest: unknown[]) => {
      lines.push(String(chunk))
      ;(rest.find((r) => typeof r === "function") as (() => void) | undefined)?.()
      return true
    }) as typeof process.stdout.write
    try {
      await rebuildInsights({ container: getContainer(), args: ["batch=100", "check"] })
    } finally {
      process.stdout.write = write
    }
    expect(lines.join("")).toMatch(/^payin insights: going on after 3 pay-ins\n/)
    expect(lines.join("")).toMatch(/payin insights: \d+ of \d+ pay-ins \(\d+\.\d%\), [\d,]+\/s, (about .+ left|time left unknown)\n/)
    expect(lines.join("")).toMatch(/payin insights: rebuilt \d+ pay-ins in \d+ s\n/)
    expect(lines.join("")).toMatch(/payin insights: the rollups agree with the ledger \(\d+ pay-ins\)\n$/)
    const after = await insights()
    expect(after.rebuild).toMatchObject({ pending: false })
    expect(after.totals).toEqual({ ...before.totals, created: before.totals.created + 1, offered: before.totals.offered + 1, open: before.totals.open + 1 })
    expect(await payin().rollups.check()).toMatchObject({ agree: true })
  })
})
