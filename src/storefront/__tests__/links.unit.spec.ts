import { paymentLinks, qrPayload, safeHttpsUrl, safePaymentPageUrl } from "../links"

const view = (method: string | null, number: string, final = false) => ({
  method,
  final,
  requisite: { bank: "tinkoff", owner_name: "Anna K.", number, sbp_number: null },
})

const DANGEROUS = [
  "javascript:alert(1)",
  "JaVaScRiPt:alert(1)",
  " javascript:alert(1)",
  "java\tscript:alert(1)",
  "javascript\n:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "vbscript:msgbox(1)",
  "file:///etc/passwd",
  "blob:https://shop.example/1234",
  "about:blank",
  "not a url",
  "://missing-scheme",
  "",
]

describe("paymentLinks", () => {
  it("turns an SBP QR link of method qr into sbpQrUrl", () => {
    expect(paymentLinks(view("qr", "https://qr.nspk.ru/AS1000ABCDEF"))).toEqual({ sbpQrUrl: "https://qr.nspk.ru/AS1000ABCDEF" })
  })

  it("turns an https link of method link into payUrl", () => {
    expect(paymentLinks(view("link", "https://pay.vtb.example/t/0123abcd"))).toEqual({ payUrl: "https://pay.vtb.example/t/0123abcd" })
  })

  it("turns a custom-scheme deeplink into appUrl", () => {
    expect(paymentLinks(view("deeplink", "tinkoff://transfer?phone=79123456789"))).toEqual({
      appUrl: "tinkoff://transfer?phone=79123456789",
    })
  })

  it("refuses plain http and https links with credentials", () => {
    expect(paymentLinks(view("link", "http://pay.vtb.example/t/1"))).toEqual({})
    expect(paymentLinks(view("qr", "https://qr.nspk.ru@evil.example/AS1"))).toEqual({})
    expect(paymentLinks(view("link", "https://user:pw@pay.vtb.example/t/1"))).toEqual({})
  })

  it.each(DANGEROUS)("refuses %p for every method", (value) => {
    for (const method of ["qr", "link", "deeplink", null]) {
      expect(paymentLinks(view(method, value))).toEqual({})
    }
  })

  it("offers nothing for cards, phones and accounts", () => {
    expect(paymentLinks(view("card", "2202201234567890"))).toEqual({})
    expect(paymentLinks(view("phone_number", "+79123456789"))).toEqual({})
    expect(paymentLinks(view("account", "40817810012345678901"))).toEqual({})
    expect(paymentLinks(view("mobile_comm", "+79123456789"))).toEqual({})
  })

  it("offers nothing once the pay-in is final or without a requisite", () => {
    expect(paymentLinks(view("qr", "https://qr.nspk.ru/AS1", true))).toEqual({})
    expect(paymentLinks({ method: "qr", requisite: null })).toEqual({})
  })
})

describe("qrPayload", () => {
  it("is the SBP link, the pay link or the app link, by method", () => {
    expect(qrPayload(view("qr", "https://qr.nspk.ru/AS1"))).toBe("https://qr.nspk.ru/AS1")
    expect(qrPayload(view("link", "https://pay.wise.example/t/9"))).toBe("https://pay.wise.example/t/9")
    expect(qrPayload(view("deeplink", "sberbank://transfer?phone=79123456789"))).toBe("sberbank://transfer?phone=79123456789")
  })

  it("is null where no standard QR exists or the link is unsafe", () => {
    expect(qrPayload(view("card", "2202201234567890"))).toBeNull()
    expect(qrPayload(view("phone_number", "+79123456789"))).toBeNull()
    expect(qrPayload(view("quasi", "2200151234567895"))).toBeNull()
    expect(qrPayload(view("deeplink", "javascript:alert(1)"))).toBeNull()
  })
})

describe("safe URLs", () => {
  it("safeHttpsUrl accepts https only", () => {
    expect(safeHttpsUrl("https://pay.example/x")).toBe("https://pay.example/x")
    expect(safeHttpsUrl("http://pay.example/x")).toBeNull()
    expect(safeHttpsUrl(42)).toBeNull()
  })

  it("safePaymentPageUrl accepts https and http on localhost (the sandbox)", () => {
    expect(safePaymentPageUrl("https://pay.service.example/pay/1")).toBe("https://pay.service.example/pay/1")
    expect(safePaymentPageUrl("http://127.0.0.1:9911/pay/1")).toBe("http://127.0.0.1:9911/pay/1")
    expect(safePaymentPageUrl("http://localhost:9911/pay/1")).toBe("http://localhost:9911/pay/1")
    expect(safePaymentPageUrl("http://pay.service.example/pay/1")).toBeNull()
    expect(safePaymentPageUrl("javascript:alert(1)")).toBeNull()
    expect(safePaymentPageUrl(null)).toBeNull()
  })
})
