import type { RunningSandbox } from "../../src/sandbox"
import { API_KEY, call, hmacHex, payInBody, sandboxUnderTest, WebhookReceiver } from "./helpers"

describe("sandbox hosted Payment Page", () => {
  const under = sandboxUnderTest({}, () => ({ successUrl: null, failureUrl: null, supportLink: null }))
  const { create } = under
  let sandbox: RunningSandbox, base: string, receiver: WebhookReceiver
  beforeAll(() => void ({ sandbox, base, receiver } = under))
  const page = (id: string) => call(base, "GET", `/pay/${id}`, { apiKey: null })
  const submit = (id: string, what: "paid" | "cancel") =>
    call(base, "POST", `/pay/${id}/${what}`, { apiKey: null, rawBody: "", headers: { "content-type": "application/x-www-form-urlencoded" } })

  it("renders amount, bank, requisite with copy buttons, owner, time left and support link in English", async () => {
    const tx = await create({ fiatAmount: 12345.6, bank: "sberbank", method: "card", paymentPageConfig: { locale: "EN" } })
    const res = await page(tx.id)
    expect(res.status).toBe(200)
    expect(res.headers["content-type"]).toMatch(/^text\/html/)
    expect(res.headers["content-security-policy"]).toContain("default-src 'none'")
    const html = res.text
    expect(html).toContain('<html lang="en">')
    expect(html).toContain("12,345.60 RUB")
    expect(html).toContain('id="bank">sberbank<')
    expect(html).toContain(`<span id="requisite">${tx.requisite.requisites}</span>`)
    expect(html).toContain(`data-copy="${tx.requisite.requisites}"`)
    expect(html).toContain(`id="owner">${tx.requisite.ownerName}<`)
    expect(html).toContain("Card number")
    expect(html).toContain("Time left")
    expect(html).toMatch(/id="time-left" data-seconds="(899|900)">1[45]:\d\d</)
    expect(html).toContain(`id="support" href="${base}/pay/support"`)
    expect(html).toContain("I have paid")
    expect(html).toContain(`action="/pay/${tx.id}/paid"`)
    expect(html).not.toMatch(/<(link|img|script)[^>]+(src|href)="https?:/)
    const support = await call(base, "GET", "/pay/support", { apiKey: null })
    expect(support.status).toBe(200)
  })

  it("renders in Russian when paymentPageConfig.locale is RU, and counts the time left by the sandbox clock", async () => {
    const tx = await create({ fiatAmount: 1500, paymentPageConfig: { locale: "RU" } })
    await call(base, "POST", "/_sandbox/clock/advance", { apiKey: null, body: { seconds: 300 } })
    const html = (await page(tx.id)).text
    expect(html).toContain('<html lang="ru">')
    expect(html).toContain("Сумма")
    expect(html).toContain("1\u00a0500,00 RUB")
    expect(html).toContain("Осталось времени")
    expect(html).toMatch(/data-seconds="(599|600)">(09:59|10:00)</)
    expect(html).toContain("Я оплатил")
    expect(html).toContain("Копировать")
    expect(html).not.toContain("I have paid")
  })

  it("falls back to English for unknown locales and escapes every interpolated value", async () => {
    const evil = 'https://support.example.test/?q="><script>alert(1)</script>'
    const tx = await create({ paymentPageConfig: { locale: "<b>xx</b>", supportLink: evil } })
    const html = (await page(tx.id)).text
    expect(html).toContain('<html lang="en">')
    expect(html).not.toContain("<script>alert(1)</script>")
    expect(html).not.toContain('"><script>')
    expect(html).toContain("&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;")
    expect(html).not.toContain("<b>xx</b>")
  })

  it('"I have paid" pays (webhook) and redirects 303 to the transaction\'s success_redirect first', async () => {
    await call(base, "PUT", "/_sandbox/merchant", { apiKey: null, body: { successUrl: "https://merchant.example.test/ok" } })
    const tx = await create({ paymentPageConfig: { success_redirect: "https://shop.example.test/thanks?order=1" } })
    const res = await submit(tx.id, "paid")
    expect(res.status).toBe(303)
    expect(res.headers.location).toBe("https://shop.example.test/thanks?order=1")
    expect(sandbox.transaction(tx.id)!.status).toBe("closed")
    const [hook] = await receiver.waitFor(1)
    expect(hook.body.status).toBe("closed")
    expect(hook.signature).toBe(hmacHex(hook.rawBody, API_KEY))
  })

  it("redirects to the merchant default when the transaction has no override, else to the built-in page", async () => {
    await call(base, "PUT", "/_sandbox/merchant", { apiKey: null, body: { successUrl: "https://merchant.example.test/ok" } })
    const withDefault = await create({ fiatAmount: 11 })
    const r1 = await submit(withDefault.id, "paid")
    expect(r1.status).toBe(303)
    expect(r1.headers.location).toBe("https://merchant.example.test/ok")

    await call(base, "PUT", "/_sandbox/merchant", { apiKey: null, body: { successUrl: null } })
    const builtIn = await create({ fiatAmount: 12, paymentPageConfig: { locale: "ru" } })
    const r2 = await submit(builtIn.id, "paid")
    expect(r2.status).toBe(303)
    expect(r2.headers.location).toBe(`${base}/pay/${builtIn.id}/success`)
    const landing = await call(base, "GET", `/pay/${builtIn.id}/success`, { apiKey: null })
    expect(landing.status).toBe(200)
    expect(landing.text).toContain("Платёж получен")
  })

  it("cancel redirects to the failure URL by the same precedence", async () => {
    await call(base, "PUT", "/_sandbox/merchant", { apiKey: null, body: { failureUrl: "https://merchant.example.test/fail" } })
    const override = await create({ fiatAmount: 21, paymentPageConfig: { error_redirect: "https://shop.example.test/oops" } })
    expect((await submit(override.id, "cancel")).headers.location).toBe("https://shop.example.test/oops")
    const merchant = await create({ fiatAmount: 22 })
    expect((await submit(merchant.id, "cancel")).headers.location).toBe("https://merchant.example.test/fail")
    await call(base, "PUT", "/_sandbox/merchant", { apiKey: null, body: { failureUrl: null } })
    const builtIn = await create({ fiatAmount: 23 })
    const res = await submit(builtIn.id, "cancel")
    expect(res.status).toBe(303)
    expect(res.headers.location).toBe(`${base}/pay/${builtIn.id}/failure`)
    expect((await call(base, "GET", `/pay/${builtIn.id}/failure`, { apiKey: null })).status).toBe(200)
    expect(sandbox.transaction(builtIn.id)!.status).toBe("canceled")
  })

  it("uses the support link by the same precedence", async () => {
    const override = await create({ fiatAmount: 31, paymentPageConfig: { supportLink: "https://t.me/shop_support" } })
    await call(base, "PUT", "/_sandbox/merchant", { apiKey: null, body: { supportLink: "mailto:help@merchant.example.test" } })
    const merchant = await create({ fiatAmount: 32 })
    expect((await page(override.id)).text).toContain('id="support" href="https://t.me/shop_support"')
    expect((await page(merchant.id)).text).toContain('id="support" href="mailto:help@merchant.example.test"')
  })

  it("always renders (200): final states show their result with a link to the success or failure URL", async () => {
    const closed = await create({ fiatAmount: 41, paymentPageConfig: { success_redirect: "https://shop.example.test/done" } })
    await call(base, "POST", `/_sandbox/transactions/${closed.id}/pay`, { apiKey: null })
    const closedPage = await page(closed.id)
    expect(closedPage.status).toBe(200)
    expect(closedPage.text).toContain('data-status="closed"')
    expect(closedPage.text).toContain("Payment received")
    expect(closedPage.text).toContain('id="back" href="https://shop.example.test/done"')
    expect(closedPage.text).not.toContain("I have paid")
    // Paying again is idempotent: no new state change, same redirect.
    const again = await submit(closed.id, "paid")
    expect(again.status).toBe(303)
    expect(again.headers.location).toBe("https://shop.example.test/done")

    const canceled = await create({ fiatAmount: 42 })
    await call(base, "POST", "/_sandbox/clock/advance", { apiKey: null, body: { seconds: 901 } })
    const canceledPage = await page(canceled.id)
    expect(canceledPage.status).toBe(200)
    expect(canceledPage.text).toContain("Payment canceled")
    expect(canceledPage.text).toContain(`id="back" href="${base}/pay/${canceled.id}/failure"`)
    const paidLate = await submit(canceled.id, "paid")
    expect(paidLate.status).toBe(303)
    expect(paidLate.headers.location).toBe(`${base}/pay/${canceled.id}/failure`)
    expect(sandbox.transaction(canceled.id)!.status).toBe("canceled")

    await sandbox.webhooksIdle()
    expect(receiver.received.map((h) => h.body.status)).toEqual(["closed", "canceled"])
  })

  it("answers 404 for an unknown transaction", async () => {
    const res = await page("3f0b7c52-8a43-4d8e-9f3e-0c3c1d1e2f3a")
    expect(res.status).toBe(404)
    expect(res.text).toContain("Payment not found")
    expect((await submit("3f0b7c52-8a43-4d8e-9f3e-0c3c1d1e2f3a", "paid")).status).toBe(404)
  })

  it("is the page externalPaymentPageUrl points at", async () => {
    const tx = await create()
    const res = await call(tx.externalPaymentPageUrl.replace(/\/pay\/.*/, ""), "GET", `/pay/${tx.id}`, { apiKey: null })
    expect(res.status).toBe(200)
    expect(res.text).toContain(tx.requisite.requisites)
  })
})
