// Insights (issues 26, 27, 39): the daily rollups follow every ledger write (statement-level triggers
// in the writing transaction) and agree with a full scan of the ledger; every pay-in is in one part
// of the funnel (status.ts); money counts in the currency it arrived in; GET /admin/payin/insights
// answers the figures (JSON and CSV) that this spec computes from the ledger's rows with the
// TypeScript rule; the rebuild command goes on after a stop, prints its progress, checks without
// holding writers and does nothing when up to date. Real Medusa, PostgreSQL, sandbox.
import rebuildInsights from "../../src/scripts/rebuild-insights"
import type { CohortCounts, Insights } from "../../src/modules/payin/insights/insights"
import { cohortCountsOf, currencyOfAmount } from "../../src/modules/payin/insights/rule"
import { FUNNEL_PARTS, type InsightAmount, LEDGER_STATUSES, funnelPartOf } from "../../src/status"
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
  /** The funnel's parts: each pay-in is in one, so they add up to `created`. */
  const sumOfParts = (totals: CohortCounts) => FUNNEL_PARTS.reduce((n, part) => n + totals[part], 0)
  /** What the rows make with the TypeScript rule (status.ts), counter by counter. */
  const countsOfRows = (rows: any[]) => {
    const totals = cohortCountsOf({ status: "creating" })
    for (const key of Object.keys(totals) as (keyof CohortCounts)[]) totals[key] = 0
    for (const row of rows) for (const [key, n] of Object.entries(cohortCountsOf(row))) totals[key as keyof CohortCounts] += n
    return totals
  }
  /** The amounts the rows make, per currency (status.ts INSIGHT_AMOUNT_CURRENCY), as numbers. */
  const amountsOfRows = (rows: any[]) => {
    const amounts: Record<string, Record<InsightAmount, number>> = {}
    const add = (row: any, figure: InsightAmount, value: unknown) => {
      amounts[currencyOfAmount(row, figure)] ??= { paid: 0, underpaid: 0, overpaid: 0, stray: 0, received: 0 }
      amounts[currencyOfAmount(row, figure)][figure] += Number(value ?? 0)
    }
    for (const row of rows) {
      const arrived = row.paid_at ? row.fiat_amount : 0
      add(row, "underpaid", row.flags?.underpayment?.missing_amount)
      add(row, "overpaid", row.flags?.overpayment?.excess_amount)
      if (row.paid_at) for (const figure of ["paid", "received"] as const) add(row, figure, arrived)
      if (row.flags?.stray_payment || row.flags?.late_payment) add(row, "stray", arrived)
    }
    return amounts
  }
  const amountsAsNumbers = (amounts: Insights["amounts"]) =>
    Object.fromEntries(Object.entries(amounts).map(([currency, a]) => [currency, Object.fromEntries(Object.entries(a).map(([k, v]) => [k, Number(v)]))]))

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
    const paid = (r: any) => Boolean(r.paid_at)
    const flagged = (r: any, flag: string) => Boolean(r.flags?.[flag])
    const keys = (k: "bank" | "method") => [...new Set(rows.map((r) => r[k] ?? ""))]
    const conversion = (k: "bank" | "method") =>
      keys(k).map((key) => {
        const { offered, paid, ended_unpaid } = countsOfRows(rows.filter((r) => (r[k] ?? "") === key))
        return { key, offered, paid, ended_unpaid, conversion: offered ? paid / offered : null }
      })
    const sum = (f: (r: any) => number) => rows.reduce((s, r) => s + f(r), 0)
    return {
      totals: countsOfRows(rows),
      amounts: amountsOfRows(rows),
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
    expect(sumOfParts(figures.totals)).toBe(figures.totals.created)
    // what this day had: every kind of outcome the page shows
    expect(figures.totals).toMatchObject({ paid: 4, underpaid: 1, disputed: 1, stray: 1, pay_again_started: 1, pay_again_created: 1, pay_again_paid: 1 })
    expect(figures.totals.ended_unpaid).toBeGreaterThanOrEqual(1)
    expect(Number(figures.amounts.rub.received)).toBe(expected.received)
    expect(Number(figures.amounts.rub.paid)).toBe(expected.received)
    expect(Number(figures.amounts.rub.underpaid)).toBe(expected.underpaidAmount)
    expect(Number(figures.amounts.rub.stray)).toBe(expected.strayAmount)
    expect(amountsAsNumbers(figures.amounts)).toEqual(expected.amounts)
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

  it("money paid in another currency counts in the currency it arrived in; what was missing, in the one asked (issue 39)", async () => {
    const { sandbox, shop } = h
    const paid = await h.placedOrder()
    await control(sandbox, "POST", `/_sandbox/transactions/${paid.payin.id}/pay`)
    // the service closes a placed order's RUB pay-in with dollars: Medusa books none of them
    const dollars = await h.placedOrder()
    const closed = { ...sandbox.transaction(dollars.payin.id), status: "closed", fiatAmount: "19.90", fiatCurrency: "USD" }
    expect((await h.webhook(JSON.stringify(closed))).status).toBe(200)
    // the service creates the next pay-in in dollars (the store refuses the session), and the shopper pays it all the same
    await control(sandbox, "POST", "/_sandbox/next-payin", { fiatAmount: "25.00", fiatCurrency: "USD" })
    expect((await shop.sessionError(await shop.cart(), "pp_payin_default")).status).toBe(400)
    const [refused] = sandbox.transactions().slice(-1)
    expect((await control(sandbox, "POST", `/_sandbox/transactions/${refused.id}/pay`)).body).toMatchObject({ status: "closed", fiatCurrency: "USD" })
    await deliver()

    const rows = (await h.ledger.rows({}, { take: 100 })) as any[]
    const ofUsd = rows.filter((r) => r.fiat_currency === "USD")
    expect(ofUsd.map((r) => [r.currency_code, r.fiat_amount, Boolean(r.paid_at)]).sort()).toEqual([["rub", "19.90", true], ["rub", "25.00", true]])
    const rub = rows.find((r) => r.service_id === paid.payin.id)
    const asked = rows.find((r) => r.service_id === dollars.payin.id)
    expect(asked.flags.underpayment).toMatchObject({ reason: "received in another currency", missing_amount: asked.assigned_amount })
    const order = (await api.get(`/admin/orders/${dollars.orderId}?fields=id,payment_status,summary`, h.admin)).data.order
    expect([order.payment_status, Number(order.summary.paid_total)]).toEqual(["awaiting", 0])

    const figures = await insights()
    // the dollars under usd (the refused pay-in's a stray payment: its session was deleted), none of them under rub;
    // the roubles missing under rub
    expect(figures.amounts.usd).toEqual({ paid: "44.90", received: "44.90", underpaid: "0", overpaid: "0", stray: "25.00" })
    expect(figures.amounts.rub.stray).toBe("0")
    expect(Number(figures.amounts.rub.received)).toBe(Number(rub.fiat_amount))
    expect(Number(figures.amounts.rub.paid)).toBe(Number(rub.fiat_amount))
    expect(Number(figures.amounts.rub.underpaid)).toBe(ofUsd.reduce((n, r) => n + Number(r.flags.underpayment?.missing_amount ?? 0), 0))
    expect(Number(figures.amounts.rub.underpaid)).toBeGreaterThan(0)
    expect(amountsAsNumbers(figures.amounts)).toEqual(amountsOfRows(rows))
    expect(figures.days).toEqual([
      { day: today(), created: rows.length, paid: 3, received: 3, received_amount: { rub: figures.amounts.rub.received, usd: "44.90" } },
    ])
    // every other figure is the ledger's, as before
    expect(figures.totals).toEqual(countsOfRows(rows))
    expect(figures.totals).toMatchObject({ paid: 3, underpaid: 2 })
    expect(figures.time_to_pay.count).toBe(3)
    expect(await payin().rollups.check()).toEqual({ agree: true, differences: 0, rows: rows.length })
    const csv = parseCsv((await api.get(`/admin/payin/insights?from=${today()}&to=${today()}&format=csv`, h.admin)).data)
    expect(csv.find((l) => l[0] === "amount" && l[1] === "usd" && l[2] === "received")?.[3]).toBe("44.90")
    expect(csv.find((l) => l[0] === "day" && l[1] === today() && l[2] === "received_amount.usd")?.[3]).toBe("44.90")

    // the rebuild counts them the same way
    await payin().rollups.restart()
    while ((await payin().rollups.batch(2)) > 0);
    const { rebuild, ...rebuilt } = await insights()
    const { rebuild: _, ...before } = figures
    expect(rebuilt).toEqual(before)
    expect(rebuild).toMatchObject({ pending: false, done: rows.length })
    expect(await payin().rollups.check()).toEqual({ agree: true, differences: 0, rows: rows.length })
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
    const first = await command(["batch=100", "check"])
    expect(first).toMatch(/^payin insights: going on after 3 pay-ins\n/)
    expect(first).toMatch(/payin insights: \d+ of \d+ pay-ins \(\d+\.\d%\), [\d,]+\/s, (about .+ left|time left unknown)\n/)
    expect(first).toMatch(/payin insights: rebuilt \d+ pay-ins in \d+ s\n/)
    expect(first).toMatch(/payin insights: the rollups agree with the ledger \(\d+ pay-ins\)\n$/)
    const after = await insights()
    expect(after.rebuild).toMatchObject({ pending: false })
    expect(after.totals).toEqual({ ...before.totals, created: before.totals.created + 1, offered: before.totals.offered + 1, open: before.totals.open + 1 })
    expect(await payin().rollups.check()).toMatchObject({ agree: true })

    // run bare once more: up to date, nothing emptied or rebuilt
    expect(await command([])).toMatch(/^payin insights: the rollups are up to date \(rebuilt .+\): nothing to do; restart rebuilds them from the ledger, check compares them with it\n$/)
    expect(await insights()).toEqual(after)
  })

  /** The rebuild command's output. */
  async function command(args: string[]): Promise<string> {
    const lines: string[] = []
    const write = process.stdout.write
    process.stdout.write = ((chunk: string, ...rest: unknown[]) => {
      lines.push(String(chunk))
      ;(rest.find((r) => typeof r === "function") as (() => void) | undefined)?.()
      return true
    }) as typeof process.stdout.write
    try {
      await rebuildInsights({ container: getContainer(), args })
    } finally {
      process.stdout.write = write
    }
    return lines.join("")
  }

  it("every pay-in is in one part of the funnel: one in each status, created = the sum of the parts, and check agrees", async () => {
    const { sandbox, shop } = h
    // the clock ends every open window: the canceled one first
    await h.placedOrder()
    await control(sandbox, "POST", "/_sandbox/clock/advance", { seconds: 901 })
    await deliver()
    const moved = async (...steps: [string, Record<string, unknown>?][]) => {
      const { payin: tx } = await h.placedOrder()
      for (const [action, body] of steps) await control(sandbox, "POST", `/_sandbox/transactions/${tx.id}/${action}`, body)
    }
    await moved() // active
    await moved(["dispute"]) // a shopper disputes before paying
    await moved(["dispute"], ["checking"])
    await moved(["dispute"], ["recalculate", { fiatAmount: "1000.00" }])
    await moved(["pay"])
    await moved(["pay"], ["dispute"])
    await deliver()
    // failed: the service refused the store's credentials
    sandbox.updateMerchant({ apiKey: "rotated-key-000000000" })
    expect((await shop.sessionError(await shop.cart(), "pp_payin_default")).status).toBe(400)
    sandbox.updateMerchant({ apiKey: KEY })
    // creating: the ledger's first write, before the service answered
    await h.sql(
      `insert into payin_transaction (id, provider_id, session_id, status, amount, raw_amount, currency_code)
       values ('payintx_creating', 'pp_payin_default', 'payses_creating', 'creating', 1790, '{"value":"1790","precision":20}', 'rub')`
    )

    const rows = (await h.ledger.rows({}, { take: 100 })) as any[]
    const statuses = rows.map((r) => `${r.status}${r.paid_at ? " (paid)" : ""}`).sort()
    expect(statuses).toEqual(["active", "canceled", "checking", "closed (paid)", "creating", "dispute", "dispute (paid)", "failed", "re_calculation"])
    const { totals } = await insights()
    expect(totals).toMatchObject({ created: 9, paid: 2, ended_unpaid: 1, open: 2, disputed_unpaid: 3, failed: 1, disputed: 4 })
    expect(sumOfParts(totals)).toBe(totals.created)
    expect(totals).toEqual(countsOfRows(rows))
    expect(await payin().rollups.check()).toEqual({ agree: true, differences: 0, rows: 9 })
    // the SQL of the part is status.ts's, for every status paid or not
    const { rows: parts } = await h.sql(
      `select s as status, p as paid, payin_rollup_part(s, p) as part from unnest(?::text[]) s cross join (values (false), (true)) v(p)`,
      [[...LEDGER_STATUSES]]
    )
    expect(parts).toHaveLength(LEDGER_STATUSES.length * 2)
    for (const { status, paid, part } of parts) expect([status, paid, part]).toEqual([status, paid, funnelPartOf(status, { paid })])
  })

  it("pay again counts the pay-in that paid the order: a late payment into the first, not a stray one into the new details", async () => {
    const { sandbox, shop } = h
    await api.post("/admin/payin/settings/default", { payAgain: { enabled: true, graceHours: 2 } }, h.admin)
    const { orderId, payin: first } = await h.placedOrder()
    await control(sandbox, "POST", "/_sandbox/clock/advance", { seconds: 901 })
    await deliver()
    expect((await shop.payAgain({ order_id: orderId })).status).toBe(200)
    const second = (await h.ledger.rows({ order_id: orderId })).find((r: any) => r.service_id !== first.id)
    expect((await insights()).pay_again).toEqual({ started: 1, created: 1, paid: 0, saved_share: 0 })
    // the shopper pays the first details after all: the service reports a dispute that closes; taken for the order
    await control(sandbox, "POST", `/_sandbox/transactions/${first.id}/dispute`)
    await control(sandbox, "POST", `/_sandbox/transactions/${first.id}/close`)
    await deliver()
    // the row's history with it: what held the booking back, should it ever be missing
    const late = await h.ledger.row({ service_id: first.id })
    const { history } = (await api.get(`/admin/payin/transactions/${late.id}`, h.admin)).data
    expect({ captured_at: late.captured_at, effect_pending: late.effect_pending, history }).toMatchObject({ captured_at: expect.anything(), effect_pending: null })
    expect((await insights()).pay_again).toEqual({ started: 1, created: 1, paid: 1, saved_share: 1 })
    // then the new details too: money into a paid order, booked nowhere, counted as stray, not as paid by pay again
    await control(sandbox, "POST", `/_sandbox/transactions/${second.service_id}/pay`)
    await deliver()
    const stray = await h.ledger.row({ id: second.id })
    expect(stray).toMatchObject({ via_pay_again: true, captured_at: null })
    expect(stray.paid_at).not.toBeNull()
    const figures = await insights()
    expect(figures.pay_again).toEqual({ started: 1, created: 1, paid: 1, saved_share: 1 })
    expect(figures.totals.stray).toBe(1)
    expect(figures.totals).toEqual(countsOfRows(await h.ledger.rows({}, { take: 100 })))
    expect(await payin().rollups.check()).toMatchObject({ agree: true })
  })

  it("a change of any column the rule reads recounts the pay-in, and statements of many rows count once per key", async () => {
    const { sql } = h
    const period = async () => {
      const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)
      return (await api.get(`/admin/payin/insights?from=${day(-2)}&to=${day(1)}`, h.admin)).data as Insights
    }
    // a currency left with rollup rows of zeros (its pay-ins moved or deleted) says nothing
    const said = (amounts: Record<string, Record<string, number>>) =>
      Object.fromEntries(Object.entries(amounts).filter(([, a]) => Object.values(a).some((n) => n !== 0)))
    const agrees = async (what: string) => {
      const rows = (await sql("select * from payin_transaction where deleted_at is null")).rows
      const figures = await period()
      expect([what, figures.totals]).toEqual([what, countsOfRows(rows)])
      expect([what, said(amountsAsNumbers(figures.amounts))]).toEqual([what, said(amountsOfRows(rows))])
      expect([what, await payin().rollups.check()]).toEqual([what, expect.objectContaining({ agree: true, differences: 0 })])
    }
    // one statement, six pay-ins of one key
    await sql(
      `insert into payin_transaction (id, provider_id, session_id, service_id, status, amount, raw_amount, currency_code, fiat_amount,
         bank, method, flags, paid_at, captured_at, pay_again_until, disputed_at, created_at)
       select 'payintx_c' || i, 'pp_payin_default', 'payses_c' || i, 'svc-c' || i,
         (array['closed', 'closed', 'canceled', 'active', 'dispute', 'closed'])[i], 1790, '{"value":"1790","precision":20}', 'rub', '1790.00',
         'VTB', 'card', case when i = 1 then '{"underpayment":{"missing_amount":"10.00"}}'::jsonb end,
         case when i in (1, 2, 6) then now() end, case when i = 1 then now() end,
         case when i = 3 then now() + interval '1 hour' end, case when i = 5 then now() end, now() - interval '1 minute'
       from generate_series(1, 6) i`
    )
    await agrees("inserted")
    // each column the triggers compare, changed alone on one pay-in
    const changes: [string, string, number][] = [
      ["flags", `flags = jsonb_set(flags, '{underpayment,missing_amount}', '"25.00"')`, 1], // the amount only: flag_kinds unchanged
      ["captured_at", "captured_at = now()", 2],
      ["pay_again_until", "pay_again_until = now()", 1],
      ["via_pay_again", "via_pay_again = true", 6],
      ["pay_again_started", "pay_again_started = true", 3],
      ["status", "status = 'canceled'", 4],
      ["paid_at", "paid_at = now() + interval '2 hours'", 3],
      ["fiat_amount", "fiat_amount = '1700.00'", 2],
      ["fiat_currency", "fiat_currency = 'USD'", 2],
      ["service_id", "service_id = null", 4],
      ["disputed_at", "disputed_at = now()", 6],
      ["bank", "bank = 'Sberbank'", 2],
      ["method", "method = 'qr'", 2],
      ["currency_code", "currency_code = 'kzt'", 6],
      ["provider_id", "provider_id = 'pp_payin_other'", 6],
      ["created_at", "created_at = created_at - interval '1 day'", 5],
      ["deleted_at", "deleted_at = now()", 4],
    ]
    for (const [column, set, i] of changes) {
      await sql(`update payin_transaction set ${set} where id = 'payintx_c${i}'`)
      await agrees(column)
    }
    // many rows in one statement: an update of every row, one that changes nothing read, a delete
    await sql("update payin_transaction set fiat_amount = '1600.00', method = 'account'")
    await agrees("update of every row")
    const before = (await sql("select * from payin_rollup_day order by day, provider_id, currency_code, bank, method")).rows
    await sql("update payin_transaction set effect_fence = effect_fence + 1")
    expect((await sql("select * from payin_rollup_day order by day, provider_id, currency_code, bank, method")).rows).toEqual(before)
    await sql("delete from payin_transaction where id in ('payintx_c1', 'payintx_c2', 'payintx_c3')")
    await agrees("delete")
    // while a rebuild runs, a statement over rows on both sides of its position counts only those before it
    await payin().rollups.restart()
    expect(await payin().rollups.batch(2)).toBe(2)
    await sql("update payin_transaction set status = 'closed', paid_at = coalesce(paid_at, now())")
    await sql(`insert into payin_transaction (id, provider_id, status, amount, raw_amount, currency_code)
      select 'payintx_' || x, 'pp_payin_default', 'creating', 1, '{"value":"1","precision":20}', 'rub' from unnest(array['a0', 'zz']) x`)
    while ((await payin().rollups.batch(2)) > 0);
    await agrees("rebuilt")
  })

  it("check reads one snapshot without waiting for writers; a rebuild batch gives up on a busy ledger instead of hanging", async () => {
    await h.placedOrder()
    await h.placedOrder()
    await payin().rollups.restart()
    expect(await payin().rollups.batch(100)).toBe(2)
    await payin().rollups.restart()
    expect(await payin().rollups.batch(1)).toBe(1)
    // a writer in flight: its pay-in and the rollup row it counted for, uncommitted
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    let wrote!: () => void
    const written = new Promise<void>((resolve) => (wrote = resolve))
    const writer = h.knex().transaction(async (trx: any) => {
      await trx.raw(`insert into payin_transaction (id, provider_id, status, amount, raw_amount, currency_code)
        values ('payintx_0writer', 'pp_payin_default', 'creating', 1, '{"value":"1","precision":20}', 'rub')`)
      wrote()
      await released
    })
    await written
    try {
      // a guard against a hang, not a measure: the check must not wait for the writer at all
      let guard: NodeJS.Timeout | undefined
      const waited = new Promise<never>((_, reject) => (guard = setTimeout(() => reject(new Error("check waited for a writer")), 60_000)))
      const check = await Promise.race([payin().rollups.check(), waited]).finally(() => clearTimeout(guard))
      // the rebuild's position is the first pay-in: the check compares what it rolled up so far
      expect(check).toEqual({ agree: true, differences: 0, rows: 1 })
      await expect(payin().rollups.batch(100, { lockTimeoutMs: 200 })).rejects.toMatchObject({ name: "RollupLockTimeoutError" })
      expect((await insights()).rebuild).toMatchObject({ pending: true, done: 1 })
    } finally {
      release()
      await writer
    }
    while ((await payin().rollups.batch(100)) > 0);
    expect(await payin().rollups.check()).toEqual({ agree: true, differences: 0, rows: 3 })
    expect((await insights()).totals.created).toBe(3)
  })
})
