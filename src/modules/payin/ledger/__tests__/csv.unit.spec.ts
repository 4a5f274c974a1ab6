import { csvCell, csvLine } from "../csv"
import { EXPORT_COLUMNS, exportCells } from "../export"

describe("csvCell (RFC 4180 quoting, OWASP formula escaping)", () => {
  it("leaves plain values as they are", () => {
    expect(csvCell("payintx_01ABC")).toBe("payintx_01ABC")
    expect(csvCell("1790.00")).toBe("1790.00")
    expect(csvCell("capture_failed underpayment")).toBe("capture_failed underpayment")
    expect(csvCell(42)).toBe("42")
    expect(csvCell(true)).toBe("true")
    expect(csvCell("")).toBe("")
    expect(csvCell(null)).toBe("")
    expect(csvCell(undefined)).toBe("")
  })

  it("quotes a field with a comma, quote, CR or LF and doubles its quotes", () => {
    expect(csvCell("a,b")).toBe('"a,b"')
    expect(csvCell('say "hi"')).toBe('"say ""hi"""')
    expect(csvCell("two\nlines")).toBe('"two\nlines"')
    expect(csvCell("cr\rhere")).toBe('"cr\rhere"')
    expect(csvCell("crlf\r\n")).toBe('"crlf\r\n"')
  })

  it("escapes a cell starting with = + - @ tab or CR with a leading quote, quoted", () => {
    expect(csvCell("=1+1")).toBe(`"'=1+1"`)
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`)
    expect(csvCell("+7 900 000-00-00")).toBe(`"'+7 900 000-00-00"`)
    expect(csvCell("-2+3+cmd|' /C calc'!A0")).toBe(`"'-2+3+cmd|' /C calc'!A0"`)
    expect(csvCell("@SUM(A1:A9)")).toBe(`"'@SUM(A1:A9)"`)
    expect(csvCell("\t=1")).toBe(`"'\t=1"`)
    expect(csvCell("\r=1")).toBe(`"'\r=1"`)
    // not at the start: nothing to escape
    expect(csvCell("a=1")).toBe("a=1")
  })

  it("keeps plain decimal numbers exact, negative ones too (no formula)", () => {
    expect(csvCell("-12.50")).toBe("-12.50")
    expect(csvCell("-0")).toBe("-0")
    expect(csvCell("12345678901234567890.123456789")).toBe("12345678901234567890.123456789")
    // a sign with anything else is escaped
    expect(csvCell("-1e5")).toBe(`"'-1e5"`)
    expect(csvCell("+12.5")).toBe(`"'+12.5"`)
    expect(csvCell("-12.")).toBe(`"'-12."`)
  })

  it("ends each record with CRLF", () => {
    expect(csvLine(["a", null, "b,c", 1])).toBe('a,,"b,c",1\r\n')
    expect(csvLine([])).toBe("\r\n")
  })
})

describe("export cells", () => {
  it("puts each field in its column: ISO times, exact strings, flags space-separated, captured true/false", () => {
    const cells = exportCells(
      {
        id: "payintx_1",
        service_id: "0f0e",
        order_id: "order_1",
        created_at: new Date("2026-03-01T10:00:00.000Z"),
        paid_at: new Date("2026-03-01T10:20:00.000Z"),
        requested_amount: "1790.00",
        currency_code: "rub",
        received_amount: "1780.00",
        crypto_amount: "19.34",
        currency_rate: "92.5371",
        merchant_fee: "44.75",
        status: "closed",
        flag_kinds: ["capture_failed", "underpayment"],
        captured: true,
      },
      new Map([["order_1", 1042]])
    )
    expect(Object.fromEntries(EXPORT_COLUMNS.map((c, i) => [c, cells[i]]))).toEqual({
      ledger_id: "payintx_1",
      service_id: "0f0e",
      order_id: "order_1",
      order_display_id: 1042,
      created_at: "2026-03-01T10:00:00.000Z",
      closed_at: "2026-03-01T10:20:00.000Z",
      requested_amount: "1790.00",
      currency: "rub",
      received_amount: "1780.00",
      crypto_amount: "19.34",
      currency_rate: "92.5371",
      merchant_fee: "44.75",
      status: "closed",
      flags: "capture_failed underpayment",
      captured: true,
    })
    const unpaid = exportCells(
      {
        id: "payintx_2",
        service_id: null,
        order_id: null,
        created_at: new Date("2026-03-01T10:00:00.000Z"),
        paid_at: null,
        requested_amount: "5",
        currency_code: "rub",
        received_amount: null,
        crypto_amount: null,
        currency_rate: null,
        merchant_fee: null,
        status: "creating",
        flag_kinds: null,
        captured: false,
      },
      new Map()
    )
    expect(csvLine(unpaid)).toBe("payintx_2,,,,2026-03-01T10:00:00.000Z,,5,rub,,,,,creating,,false\r\n")
  })
})
