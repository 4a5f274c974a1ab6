// The ledger at scale (issue 15) on a real Medusa and PostgreSQL, 52,000 pay-ins filled by SQL
// in the issue's mix (integration-tests/support/ledger-fill.ts):
//   - every admin list/filter/search, the export, the detail and order views, the webhook apply
//     path's lookups and reconciliation's selections read payin_transaction through an index
//     (EXPLAIN of the statements they really ran: no Seq Scan on it);
//   - cursor pagination walks every page once (with filters), offset still works up to its limit;
//   - search: exact up to the cap per column, broader by windows of the newest rows (short pages
//     that go on), by cursor only;
//   - counts: exact up to the cap, the planner's estimate above it, "at least" when more matched
//     than the estimate said;
//   - the CSV export: columns, RFC 4180 quoting, formula escaping, exact amounts, filters, 400s,
//     the admin's session cookie (the Pay-ins page downloads it through a plain link), and a
//     50,000-row export streamed with backpressure and constant memory.
// No timing assertions.
import { setFlagsFromString } from "v8"
import { runInNewContext } from "vm"
import { Modules } from "@medusajs/framework/utils"
import { reconcilePayins } from "../../src/money-path/reconcile"
import { COUNT_CAP, MAX_OFFSET, SEARCH_EXACT_CAP, SEARCH_WINDOW } from "../../src/modules/payin/ledger/limits"
import { EXPORT_COLUMNS } from "../../src/modules/payin/ledger/export"
import { encodeCursor } from "../../src/modules/payin/ledger/cursor"
import { LEDGER_STATUSES, PAYIN_FLAGS } from "../../src/status"
import { TEST_ADMIN, adminHeaders } from "../support/admin"
import { parseCsv } from "../support/csv"
import { planNodesOn } from "../support/explain"
import { appSpec } from "../support/harness"
import { fillLedger } from "../support/ledger-fill"

jest.setTimeout(180_000)

const SCALE = 50_000
const WALK = 2_000
/** Pay-ins of unconfigured instances: reconciliation selects them but looks nothing up. */
const SCALE_PROVIDER = "pp_payin_scale"
const WALK_PROVIDER = "pp_payin_walk"

appSpec((h) => {
  const { api, getContainer, knex } = h
  let admin: { headers: Record<string, string> }
  const get = async (url: string, config: Record<string, unknown> = admin) => {
    const res = await api.get(url, { ...config, validateStatus: () => true })
    return { status: res.status as number, data: res.data as any, headers: res.headers as Record<string, string> }
  }
  const ids = async (sql: string, bindings: unknown[] = []) => ((await knex().raw(sql, bindings)).rows as { id: string }[]).map((r) => r.id)

  // filled once; the runner snapshots the database after this and restores it before each test
  beforeAll(async () => {
    admin = await adminHeaders(getContainer(), api)
    await fillLedger(knex(), { count: SCALE, tag: "s", providerId: SCALE_PROVIDER, rareFlags: true })
    // several rows share a creation time: pages must break ties by id
    await fillLedger(knex(), { count: WALK, tag: "w", providerId: WALK_PROVIDER, sameTimeEvery: 3, spacingSeconds: 7 })
    await knex().raw("analyze payin_transaction")
  })

  it("reads payin_transaction through an index in every admin query, the export and reconciliation (EXPLAIN)", async () => {
    const statements: { sql: string; bindings: unknown[] }[] = []
    const listener = (q: { sql: string; bindings?: unknown[] }) => {
      if (/payin_transaction/.test(q.sql) && /^\s*(select|with)\b/i.test(q.sql)) {
        statements.push({ sql: q.sql, bindings: q.bindings ?? [] })
      }
    }
    const pg = knex()
    try {
      const sample = (await pg.raw(
        `select id, service_id, session_id, order_id, cart_id, payment_collection_id, requisite ->> 'requisites' as requisites,
           requisite ->> 'sbpNumber' as sbp, created_at from payin_transaction
         where provider_id = ? and order_id is not null and requisite ->> 'sbpNumber' is not null order by created_at limit 1 offset 12000`,
        [SCALE_PROVIDER]
      )).rows[0]
      const middle = (await pg.raw(
        `select id, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at from payin_transaction
         order by created_at desc, id desc offset 25000 limit 1`
      )).rows[0]
      const deep = encodeCursor({ at: middle.at, id: middle.id })
      pg.on("query", listener)
      const urls = [
        "",
        "?limit=100",
        `?cursor=${deep}`,
        "?offset=40",
        ...LEDGER_STATUSES.map((s) => `?status=${s}`),
        ...LEDGER_STATUSES.map((s) => `?status=${s}&cursor=${deep}`),
        "?status=dispute,checking",
        "?status=active,dispute,checking,re_calculation",
        ...PAYIN_FLAGS.map((f) => `?flag=${f}`),
        `?flag=underpayment&cursor=${deep}`,
        "?flag=underpayment,capture_failed",
        "?has_flags=true",
        `?has_flags=true&cursor=${deep}`,
        ...[sample.id, sample.service_id, sample.session_id, sample.order_id, sample.cart_id, sample.requisites, sample.sbp].map(
          (v: string) => `?q=${encodeURIComponent(v.slice(0, Math.max(8, v.length - 6)))}`
        ),
        `?q=${sample.id}`,
        `?order_id=${sample.order_id}`,
        `?provider_id=${SCALE_PROVIDER}`,
        // what the admin UI combines: status × flag / any flag / search
        ...LEDGER_STATUSES.map((s) => `?status=${s}&flag=underpayment`),
        ...LEDGER_STATUSES.map((s) => `?status=${s}&has_flags=true`),
        `?status=closed&q=${sample.id.slice(0, 14)}`,
        `?flag=underpayment&q=${sample.order_id.slice(0, 12)}`,
      ]
      for (const query of urls) {
        const res = await get(`/admin/payin/transactions${query}`)
        expect([query, res.status]).toEqual([query, 200])
      }
      const from = new Date(Date.now() - 30 * 86400_000).toISOString()
      const to = new Date(Date.now() - 10 * 86400_000).toISOString()
      for (const query of [
        `?from=${from}&to=${to}`,
        `?by=closed&from=${from}&to=${to}`,
        `?status=dispute&from=${from}`,
        `?flag=underpayment&by=closed&to=${to}`,
        `?has_flags=true`,
        `?provider_id=${WALK_PROVIDER}`,
      ]) {
        const res = await get(`/admin/payin/transactions/export${query}`)
        expect([query, res.status]).toEqual([query, 200])
      }
      expect((await get(`/admin/payin/transactions/${sample.id}`)).status).toBe(200)
      expect((await get(`/admin/payin/orders/${sample.order_id}`)).status).toBe(200)
      // the webhook apply path's lookups
      await h.ledger.lookups.withServiceId(sample.service_id)
      await h.ledger.lookups.findBy("session_id", sample.session_id)
      await h.ledger.lookups.ofCollections([sample.payment_collection_id])
      await h.ledger.lookups.get(sample.id)
      // reconciliation: open pay-ins, pending effects (these instances are not configured: selected, not looked up)
      const report = await reconcilePayins(getContainer(), { olderThanSeconds: 0 })
      expect(report.checked).toBe(0)
      const open = await h.ledger.openPage(new Date(), "", 200)
      expect(open).toHaveLength(200)
      await h.ledger.openPage(new Date(), open[199].id, 200)
    } finally {
      pg.off("query", listener)
    }

    expect(statements.some((s) => /effect_pending is not null/.test(s.sql))).toBe(true) // pending effects
    expect(statements.some((s) => /\bstatus in \(/.test(s.sql) && /order by id limit/i.test(s.sql))).toBe(true) // open pay-ins (LedgerQueries.openPage)
    expect(statements.some((s) => /\(created_at, id\) </.test(s.sql))).toBe(true) // cursor pages
    expect(statements.some((s) => /limit \? \) as capped|\) as capped/.test(s.sql))).toBe(true) // capped counts
    // as they were sent: $1… placeholders, the values bound
    const scans = (await planNodesOn(pg, statements, "payin_transaction"))
      .filter((p) => p.types.includes("Seq Scan"))
      .map((p) => p.sql.slice(0, 300))
    expect(scans).toEqual([])
    expect(statements.length).toBeGreaterThan(150)
  })

  it("keeps flag_kinds equal to the keys of flags on every write (flag, unknown pay-in)", async () => {
    const [row] = await ids(`select id from payin_transaction where provider_id = ? and flags is null limit 1`, [WALK_PROVIDER])
    expect(await h.ledger.flag(row, "late_payment", { note: "test" })).toBe(true)
    expect(await h.ledger.flag(row, "capture_failed", { attempts: 5 })).toBe(true)
    expect(await h.ledger.flag(row, "late_payment", { note: "again" })).toBe(false)
    const unknown = await h.ledger.createUnknown(WALK_PROVIDER, {
      id: "svc-unknown-1",
      fiatAmount: "10.00",
      fiatCurrency: "RUB",
      extra: { externalTransactionId: "ext-1" },
    } as any)
    const kinds = async (id: string) => (await knex().raw("select flag_kinds from payin_transaction where id = ?", [id])).rows[0].flag_kinds
    expect(await kinds(row)).toEqual(["capture_failed", "late_payment"])
    expect(await kinds(unknown.id)).toEqual(["unknown_payin"])
    // the whole table, the filled rows included
    const drift = await knex().raw(
      `select count(*)::int as n from payin_transaction
       where flag_kinds is distinct from (select array_agg(k order by k) from jsonb_object_keys(coalesce(flags, '{}'::jsonb)) as k)`
    )
    expect(drift.rows[0].n).toBe(0)
    const listed = await get(`/admin/payin/transactions?flag=late_payment&provider_id=${WALK_PROVIDER}`)
    expect(listed.data.transactions.map((t: { id: string }) => t.id)).toEqual([row])
  })

  it("walks every page once by cursor, with and without filters; offset still works", async () => {
    const walk = async (filter: string, limit: number) => {
      const seen: string[] = []
      let cursor: string | null = null
      for (let pages = 0; pages < 1000; pages++) {
        const res = await get(`/admin/payin/transactions?${filter}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`)
        expect(res.status).toBe(200)
        expect(res.data.transactions.length).toBeLessThanOrEqual(limit)
        seen.push(...res.data.transactions.map((t: { id: string }) => t.id))
        cursor = res.data.next_cursor
        if (!cursor) break
        // a broad search's page may be short (its window ran out), a list's never
        if (!/(^|&)q=/.test(filter)) expect(res.data.transactions).toHaveLength(limit)
      }
      return seen
    }
    const cases: [string, string, unknown[]][] = [
      [`provider_id=${WALK_PROVIDER}`, "provider_id = ?", [WALK_PROVIDER]],
      [`provider_id=${WALK_PROVIDER}&status=closed`, "provider_id = ? and status = 'closed'", [WALK_PROVIDER]],
      [`provider_id=${WALK_PROVIDER}&status=active,dispute`, "provider_id = ? and status in ('active', 'dispute')", [WALK_PROVIDER]],
      [`provider_id=${WALK_PROVIDER}&has_flags=true`, "provider_id = ? and flags is not null", [WALK_PROVIDER]],
      [`flag=underpayment&q=payintx_01W`, "jsonb_exists(flags, 'underpayment') and id like 'payintx\\_01W%'", []],
      [`q=payintx_01W&status=canceled`, "id like 'payintx\\_01W%' and status = 'canceled'", []],
    ]
    for (const [filter, where, bindings] of cases) {
      const expected = await ids(
        `select id from payin_transaction where ${where} order by created_at desc, id desc`,
        bindings
      )
      expect(expected.length).toBeGreaterThan(5)
      const seen = await walk(filter, 37)
      expect([filter, seen.length]).toEqual([filter, expected.length])
      expect(new Set(seen).size).toBe(seen.length)
      expect(seen).toEqual(expected)
    }
    // ties: rows sharing a creation time are split across pages and still come once each
    const ties = (await knex().raw(
      `select count(*)::int as n from (select created_at from payin_transaction where provider_id = ? group by 1 having count(*) > 1) t`,
      [WALK_PROVIDER]
    )).rows[0].n
    expect(ties).toBeGreaterThan(500)

    // offset keeps working and agrees with the cursor's pages
    const byCursor = await walk(`provider_id=${WALK_PROVIDER}`, 50)
    const third = await get(`/admin/payin/transactions?provider_id=${WALK_PROVIDER}&limit=50&offset=100`)
    expect(third.data.transactions.map((t: { id: string }) => t.id)).toEqual(byCursor.slice(100, 150))
    expect(third.data).toMatchObject({ count: WALK, count_is_estimate: false, limit: 50, offset: 100 })
    expect(typeof third.data.next_cursor).toBe("string")

    // cursors are validated
    for (const bad of ["nonsense!", encodeURIComponent(Buffer.from("2026-01-01|x").toString("base64url")), "eA"]) {
      const res = await get(`/admin/payin/transactions?cursor=${bad}`)
      expect(res.status).toBe(400)
      expect(res.data.fields[0]).toMatchObject({ path: "cursor" })
    }
    const both = await get(`/admin/payin/transactions?offset=20&cursor=${third.data.next_cursor}`)
    expect(both.status).toBe(400)
    expect(both.data.message).toMatch(/either cursor or offset/)
  })

  it("searches exactly up to the cap per column, broader by windows of the newest rows, paged by cursor only", async () => {
    // older than every other row: a broad search reaches them only after windows without a match
    const OLD = SEARCH_EXACT_CAP + 100
    await fillLedger(knex(), { count: OLD, tag: "x", providerId: "pp_payin_old", newest: new Date("2020-01-01T00:00:00Z"), spacingSeconds: 60 })
    await knex().raw("analyze payin_transaction")
    const matching = (prefix: string) =>
      ids(`select id from payin_transaction where id like ? order by created_at desc, id desc`, [`${prefix.replace(/_/g, "\\_")}%`])

    // narrow: every match, the exact count
    const narrow = await get("/admin/payin/transactions?q=payintx_01XA&limit=100")
    const expectedNarrow = await matching("payintx_01XA")
    expect(expectedNarrow.length).toBeGreaterThan(20)
    expect(narrow.data).toMatchObject({ count: expectedNarrow.length, count_is_estimate: false, count_is_lower_bound: false, next_cursor: null })
    expect(narrow.data.transactions.map((t: { id: string }) => t.id)).toEqual(expectedNarrow)

    // broad (more than the cap match the id column): newest first through windows of SEARCH_WINDOW rows;
    // the windows before the old rows hold none of them: short (empty) pages that still go on
    const expected = await matching("payintx_01X")
    expect(expected).toHaveLength(OLD)
    const newer = (await knex().raw(`select count(*)::int as n from payin_transaction where created_at > '2020-01-02'`)).rows[0].n
    expect(newer).toBeGreaterThan(SEARCH_WINDOW)
    const seen: string[] = []
    const sizes: number[] = []
    let cursor: string | null = null
    for (let pages = 0; pages < 100; pages++) {
      const res = await get(`/admin/payin/transactions?q=payintx_01X&limit=100${cursor ? `&cursor=${cursor}` : ""}`)
      expect(res.status).toBe(200)
      expect(res.data).toMatchObject({ count: SEARCH_EXACT_CAP, count_is_estimate: true, count_is_lower_bound: true })
      seen.push(...res.data.transactions.map((t: { id: string }) => t.id))
      sizes.push(res.data.transactions.length)
      cursor = res.data.next_cursor
      if (!cursor) break
    }
    expect(seen).toEqual(expected)
    expect(sizes[0]).toBe(0) // the newest window holds none of them, and says to go on
    expect(sizes.filter((n) => n === 100).length).toBeGreaterThanOrEqual(Math.floor(OLD / 100) - 1)

    // a broad search pages by cursor only; a deep offset is refused for every list
    const offset = await get("/admin/payin/transactions?q=payintx_01X&offset=20")
    expect(offset.status).toBe(400)
    expect(offset.data.fields[0]).toMatchObject({ path: "offset" })
    expect(offset.data.message).toMatch(/cursor/)
    expect((await get("/admin/payin/transactions?q=payintx_01XA&offset=20")).status).toBe(200)
    const deep = await get(`/admin/payin/transactions?offset=${MAX_OFFSET + 1}`)
    expect(deep.status).toBe(400)
    expect(deep.data.fields[0]).toMatchObject({ path: "offset" })
    expect(deep.data.message).toMatch(/next_cursor/)
    expect((await get(`/admin/payin/transactions?offset=${MAX_OFFSET}`)).status).toBe(200)
  })

  it("counts exactly up to the cap, estimates above it, and says 'at least' when the estimate was low", async () => {
    const all = await get("/admin/payin/transactions")
    const total = SCALE + WALK
    expect(all.data).toMatchObject({ count_is_estimate: true, count_is_lower_bound: false })
    expect(all.data.count).toBeGreaterThan(total * 0.8)
    expect(all.data.count).toBeLessThan(total * 1.2)

    const exactCount = async (where: string, bindings: unknown[] = []) =>
      (await knex().raw(`select count(*)::int as n from payin_transaction where ${where}`, bindings)).rows[0].n as number
    const active = await get("/admin/payin/transactions?status=active")
    expect(active.data).toMatchObject({ count: await exactCount("status = 'active'"), count_is_estimate: false, count_is_lower_bound: false })
    const flagged = await get("/admin/payin/transactions?flag=underpayment")
    expect(flagged.data).toMatchObject({ count: await exactCount("jsonb_exists(flags, 'underpayment')"), count_is_estimate: false })
    expect(flagged.data.count).toBeGreaterThan(500)

    // more rows than the statistics know of (autovacuum off for this table, no ANALYZE): the
    // estimate stays under the cap, counting stops at the cap + 1: "at least" the cap
    await knex().raw("alter table payin_transaction set (autovacuum_enabled = false)")
    await knex().raw(
      `insert into payin_transaction (id, provider_id, status, amount, raw_amount, currency_code, created_at)
       select 'payintx_01F' || lpad(i::text, 24, '0'), 'pp_payin_failed', 'failed', 10, '{"value":"10","precision":20}', 'rub',
         now() - i * interval '1 second'
       from generate_series(1, ?::int) as i`,
      [COUNT_CAP + 500]
    )
    const failed = await get("/admin/payin/transactions?status=failed")
    expect(failed.data).toMatchObject({ count: COUNT_CAP, count_is_estimate: true, count_is_lower_bound: true })
    expect(failed.data.transactions).toHaveLength(20)
  })

  it("exports CSV: columns, quoting, formula escaping, exact amounts, filters, 400s, the session cookie", async () => {
    const order = await getContainer()
      .resolve(Modules.ORDER)
      .createOrders({ currency_code: "rub", email: "csv@example.test" })
    const base = new Date("2026-03-01T10:00:00.000Z")
    const at = (minutes: number) => new Date(base.getTime() + minutes * 60_000)
    const row = (id: string, fields: Record<string, unknown>) => ({
      id,
      provider_id: "pp_payin_csv",
      status: "closed",
      currency_code: "rub",
      amount: "1.00",
      raw_amount: JSON.stringify({ value: "1.00", precision: 20 }),
      ...fields,
    })
    await knex()("payin_transaction").insert([
      row("payintx_csv_1", {
        service_id: "svc-1",
        order_id: order.id,
        amount: "12345678901234567890.123456789",
        raw_amount: JSON.stringify({ value: "12345678901234567890.123456789", precision: 20 }),
        fiat_amount: "12345678901234567880.12",
        created_at: at(0),
        paid_at: at(20),
        captured_at: at(21),
        flags: JSON.stringify({ underpayment: {}, capture_failed: {} }),
        flag_kinds: ["capture_failed", "underpayment"],
        service_data: JSON.stringify({
          cryptoAmount: "=HYPERLINK(\"http://x\",\"click\")",
          currencyRate: "+92.5",
          merchantFee: "-2+3",
        }),
      }),
      row("payintx_csv_2", {
        service_id: "@SUM(A1)",
        created_at: at(1),
        status: "canceled",
        fiat_amount: "1.00",
        service_data: JSON.stringify({ cryptoAmount: "\tcmd", currencyRate: "\r=1", merchantFee: "-12.50" }),
      }),
      row("payintx_csv_3", {
        service_id: 'a "quoted", value\nwith a line',
        created_at: at(2),
        paid_at: at(3000),
        fiat_amount: "0.10",
        amount: "0.10",
        raw_amount: JSON.stringify({ value: "0.10", precision: 20 }),
        service_data: JSON.stringify({ cryptoAmount: "0.001081", currencyRate: "92.5371", merchantFee: "0.00" }),
      }),
    ])

    const res = await get("/admin/payin/transactions/export?provider_id=pp_payin_csv")
    expect(res.status).toBe(200)
    expect(res.headers["content-type"]).toBe("text/csv; charset=utf-8")
    expect(res.headers["content-disposition"]).toBe('attachment; filename="payins-created-all.csv"')
    expect(res.data.endsWith("\r\n")).toBe(true)
    const [header, ...records] = parseCsv(res.data)
    expect(header).toEqual([...EXPORT_COLUMNS])
    const byId = Object.fromEntries(records.map((r) => [r[0], Object.fromEntries(header.map((h, k) => [h, r[k]]))]))
    expect(records.map((r) => r[0])).toEqual(["payintx_csv_1", "payintx_csv_2", "payintx_csv_3"])
    expect(byId.payintx_csv_1).toEqual({
      ledger_id: "payintx_csv_1",
      service_id: "svc-1",
      order_id: order.id,
      order_display_id: String(order.display_id),
      created_at: "2026-03-01T10:00:00.000Z",
      closed_at: "2026-03-01T10:20:00.000Z",
      requested_amount: "12345678901234567890.123456789",
      currency: "rub",
      received_amount: "12345678901234567880.12",
      crypto_amount: "'=HYPERLINK(\"http://x\",\"click\")",
      currency_rate: "'+92.5",
      merchant_fee: "'-2+3",
      status: "closed",
      flags: "capture_failed underpayment",
      captured: "true",
    })
    expect(byId.payintx_csv_2).toMatchObject({
      service_id: "'@SUM(A1)",
      order_id: "",
      order_display_id: "",
      closed_at: "",
      received_amount: "",
      crypto_amount: "'\tcmd",
      currency_rate: "'\r=1",
      merchant_fee: "-12.50",
      status: "canceled",
      flags: "",
      captured: "false",
    })
    expect(byId.payintx_csv_3).toMatchObject({
      service_id: 'a "quoted", value\nwith a line',
      requested_amount: "0.10",
      received_amount: "0.10",
      crypto_amount: "0.001081",
    })
    // the raw text: quoted where needed, quotes doubled, escaped cells quoted
    expect(res.data).toContain(`,"'=HYPERLINK(""http://x"",""click"")","'+92.5","'-2+3",closed,capture_failed underpayment,true\r\n`)
    expect(res.data).toContain(`payintx_csv_3,"a ""quoted"", value\nwith a line",`)

    // filters: period by creation or by closing (never-closed left out), status, flag, any flag
    const exported = async (query: string) => {
      const r = await get(`/admin/payin/transactions/export?provider_id=pp_payin_csv&${query}`)
      expect([query, r.status]).toEqual([query, 200])
      return parseCsv(r.data).slice(1).map((rec) => rec[0])
    }
    expect(await exported("from=2026-03-01T10:01:00Z&to=2026-03-01T10:02:00Z")).toEqual(["payintx_csv_2"])
    expect(await exported("from=2026-03-01T13:00:00%2B03:00")).toEqual(["payintx_csv_1", "payintx_csv_2", "payintx_csv_3"])
    expect(await exported("to=2026-03-01")).toEqual([])
    expect(await exported("by=closed")).toEqual(["payintx_csv_1", "payintx_csv_3"])
    expect(await exported("by=closed&from=2026-03-02")).toEqual(["payintx_csv_3"])
    expect(await exported("status=canceled")).toEqual(["payintx_csv_2"])
    expect(await exported("flag=underpayment")).toEqual(["payintx_csv_1"])
    expect(await exported("has_flags=true&status=closed")).toEqual(["payintx_csv_1"])
    const byClosed = await get("/admin/payin/transactions/export?provider_id=pp_payin_csv&by=closed&from=2026-03-01&to=2026-04-01")
    expect(byClosed.headers["content-disposition"]).toBe('attachment; filename="payins-closed-2026-03-01-to-2026-04-01.csv"')

    // the same rows the list filters to, in the big fill too
    const walkExport = await get(`/admin/payin/transactions/export?provider_id=${WALK_PROVIDER}&status=closed&flag=underpayment`)
    const walkIds = parseCsv(walkExport.data).slice(1).map((r) => r[0])
    expect(walkIds).toEqual(
      await ids(`select id from payin_transaction where provider_id = ? and status = 'closed' and jsonb_exists(flags, 'underpayment') order by created_at, id`, [
        WALK_PROVIDER,
      ])
    )

    // 400s name the parameter
    for (const [query, field] of [
      ["by=paid", "by"],
      ["from=yesterday", "from"],
      ["to=2026-13-01", "to"],
      ["from=2026-03-02&to=2026-03-01", "to"],
      ["status=paid", "status"],
      ["flag=Bad-Flag", "flag"],
      ["has_flags=yes", "has_flags"],
      ["q=payintx", ""],
    ]) {
      const r = await get(`/admin/payin/transactions/export?${query}`)
      expect([query, r.status]).toEqual([query, 400])
      expect(r.data.type).toBe("invalid_data")
      expect(r.data.fields[0].path.split(".")[0]).toBe(field)
    }

    // the admin's browser session: a plain link carries the session cookie, nothing else
    expect((await get("/admin/payin/transactions/export?provider_id=pp_payin_csv", {})).status).toBe(401)
    const { data: login } = await api.post("/auth/user/emailpass", TEST_ADMIN)
    const session = await api.post("/auth/session", {}, { headers: { authorization: `Bearer ${login.token}` } })
    const cookie = (session.headers["set-cookie"] as string[])[0].split(";")[0]
    const viaCookie = await get("/admin/payin/transactions/export?provider_id=pp_payin_csv", { headers: { cookie } })
    expect(viaCookie.status).toBe(200)
    expect(parseCsv(viaCookie.data)).toHaveLength(4)
  })

  it("streams a 50,000-row export with backpressure: the server stops reading while the client does, memory stays flat", async () => {
    setFlagsFromString("--expose_gc")
    const gc = runInNewContext("gc") as () => void
    const batchQueries = { n: 0 }
    const listener = (q: { sql: string }) => {
      if (/cryptoAmount/.test(q.sql)) batchQueries.n++
    }
    const pg = knex()
    const settle = async () => {
      for (let i = 0; i < 3; i++) {
        gc()
        await new Promise((r) => setTimeout(r, 20))
      }
      return process.memoryUsage().heapUsed
    }
    // warm the route (first-call compilation is not the export's memory)
    await get(`/admin/payin/transactions/export?provider_id=${WALK_PROVIDER}`)
    const baseline = await settle()
    pg.on("query", listener)
    // RSS from the request to the last byte (for the log: it includes garbage not yet collected)
    const rssBefore = process.memoryUsage().rss
    let peakRss = rssBefore
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50)
    let stream: (NodeJS.ReadableStream & { pause(): void; resume(): void; destroy(): void }) | null = null
    let finished = false
    try {
      const res = await api.get(`/admin/payin/transactions/export?provider_id=${SCALE_PROVIDER}`, { ...admin, responseType: "stream" })
      const body = res.data as NodeJS.ReadableStream & { pause(): void; resume(): void; destroy(): void }
      stream = body
      let bytes = 0
      let lines = 0
      let tail = ""
      const done = new Promise<void>((resolve, reject) => {
        body.on("data", (chunk: Buffer) => {
          bytes += chunk.length
          const text = tail + chunk.toString("utf8")
          const parts = text.split("\r\n")
          tail = parts.pop() ?? ""
          lines += parts.length
        })
        body.on("end", () => resolve())
        body.on("error", reject)
      })
      const startedAt = Date.now()
      // read about 2 MB, then stop reading
      while (bytes < 2_000_000) await new Promise((r) => setTimeout(r, 5))
      body.pause()
      // the socket buffers fill up (how far depends on the kernel), then the server waits for
      // 'drain' (or has read everything): no batch is read for 1 s
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
      let pausedAt = { bytes, batches: batchQueries.n }
      for (let waited = 0; waited < 20_000; waited += 1000) {
        await sleep(1000)
        if (batchQueries.n === pausedAt.batches) break
        pausedAt = { bytes, batches: batchQueries.n }
      }
      expect(batchQueries.n).toBe(pausedAt.batches)
      const pausedHeap = (await settle()) - baseline
      const resumedAt = Date.now()
      body.resume()
      await done.finally(() => clearInterval(sampler))
      finished = true
      const timing = `paused ${resumedAt - startedAt} ms, then ${Date.now() - resumedAt} ms to the end`
      expect(tail).toBe("")
      expect(lines).toBe(SCALE + 1)
      expect(batchQueries.n).toBeGreaterThanOrEqual(SCALE / 1000)
      // paused mid-way (the live heap after full GCs), the server holds about a batch, not the
      // export nor what it has read so far
      const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`
      console.log(
        `export of ${SCALE} rows: ${mb(bytes)}; paused after reading ${mb(pausedAt.bytes)} (${pausedAt.batches} batches read by the server, ` +
          `the rest in socket buffers): live heap ${mb(pausedHeap)} above the baseline; RSS at most +${mb(peakRss - rssBefore)} (${timing})`
      )
      // Held rows would show: the whole export is `bytes` of CSV (more as row objects), and when
      // it pauses the server has read 70–85% of it (the rest fits in loopback socket buffers).
      // The live heap of the Medusa app running in this process varies by a few MB between runs
      // (0.8 and 2.6 MB measured in CI), so the bound is half the export, not a quarter (a
      // quarter failed once at 2.7 MB).
      expect(pausedHeap).toBeLessThan(bytes / 2)
    } finally {
      pg.off("query", listener)
      clearInterval(sampler)
      // a failed assertion must not leave the response waiting for a reader
      if (!finished) stream?.destroy()
    }
  })
})
