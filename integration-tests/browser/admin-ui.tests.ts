// The admin in a real browser against the demo store (browser.spec.ts starts it): settings saved
// and shown with their source, section by section (the plugin-wide ones through their own save),
// the shopper notification settings and the alerts, Test connection (success and the whitelist
// failure with the address to add), the order widget, the transactions page and Reconcile now, the
// Health section (a service call refused for real: the failing signal, what to do, its link, its
// alert in Medusa's notification panel), the insights page (its figures counted here from the
// ledger's rows), the Russian UI. On each page axe's WCAG 2.1 A/AA rules find no serious or
// critical violation in the plugin's own markup: scoped to its page's container or widget, as the
// dashboard's chrome around it (Medusa's) has some of its own.
import type { Page } from "playwright-core"
import { adminLogin } from "../support/chromium"
import { eventually } from "../support/medusa-process"
import { expectAccessible } from "./axe"
import type { BrowserSuite } from "./suite"

export function adminTests(suite: BrowserSuite): void {
  let page: Page
  const shot = (name: string) => suite.shot(page, name)
  const sandbox = (method: string, route: string, body?: unknown) => suite.sandbox(method, route, body)

  beforeAll(async () => {
    const demo = suite.demo
    const loginStarted = Date.now()
    page = (await adminLogin(suite.browser, demo.adminUrl, { email: demo.adminEmail, password: demo.adminPassword })).page
    // on the dashboard: the admin's navigation is there, not the login form
    await page.locator('a[href$="/orders"]').first().waitFor()
    expect(await page.locator('input[name="password"]').count()).toBe(0)
    console.log(`[browser] logged in (first load compiles the dashboard) in ${((Date.now() - loginStarted) / 1000).toFixed(1)} s`)
  })

  afterAll(async () => {
    await page?.context().close().catch(() => undefined)
  })

  const openSettings = async () => {
    await page.goto(`${suite.demo.adminUrl}/settings/payin`)
    await page.getByTestId("payin-field-baseUrl").waitFor()
    await page.getByTestId("payin-plugin-settings").waitFor()
  }
  /** Picks an option of the select in the element with this test id. */
  const choose = async (testId: string, option: string | RegExp) => {
    await page.getByTestId(testId).getByRole("combobox").click()
    await page.getByRole("option", { name: option }).click()
  }
  /** axe on the plugin's part of the page (its test id), 0 serious or critical violations. */
  const accessible = (testId: string, state: string, on: Page = page) =>
    expectAccessible(on, { state: `admin, ${state}`, include: `[data-testid="${testId}"]` })
  const sourceIs = (field: string, source: string) =>
    page.waitForFunction(
      ([f, s]) => document.querySelector(`[data-testid="payin-source-${f}"]`)?.getAttribute("data-source") === s,
      [field, source] as const
    )

  it("the demo made its sample pay-ins", () => {
    expect(Object.keys(suite.demo.samples)).toEqual(["paid", "awaiting", "expired", "dispute", "recalculated", "late", "stray"])
    expect(suite.demo.samples.paid.status).toBe("closed")
    expect(suite.demo.samples.awaiting.status).toBe("active")
  })

  it("Settings → Pay-in: saves a setting, shows its source, keeps the key masked", async () => {
    await page.goto(`${suite.demo.adminUrl}/settings/payin`)
    await page.getByTestId("payin-settings-page").waitFor()
    // reachable from the settings menu
    await expect(page.getByRole("link", { name: "Pay-in", exact: true }).count()).resolves.toBeGreaterThan(0)
    await expect(page.getByTestId("payin-webhook-url").textContent()).resolves.toBe(suite.demo.webhookUrl)
    const masked = await page.getByTestId("payin-apikey-masked").textContent()
    expect(masked).toMatch(/••••\w{4}/)
    expect(await page.content()).not.toContain(suite.demo.sandboxApiKey)

    const success = page.getByTestId("payin-field-paymentPage.successUrl")
    await success.fill("https://shop.example.com/thanks")
    await page.getByTestId("payin-save").click()
    await page.getByText("Settings saved").first().waitFor()
    await page.reload()
    await page.getByTestId("payin-settings-page").waitFor()
    await expect(page.getByTestId("payin-field-paymentPage.successUrl").inputValue()).resolves.toBe("https://shop.example.com/thanks")
    await expect(page.getByTestId("payin-source-paymentPage.successUrl").getAttribute("data-source")).resolves.toBe("admin")
    await expect(page.getByTestId("payin-source-baseUrl").getAttribute("data-source")).resolves.toBe("config")

    // an invalid value: the field's error, nothing saved
    await page.getByTestId("payin-field-paymentPage.supportLink").fill("not a link")
    await page.getByTestId("payin-save").click()
    await page.getByTestId("payin-field-error-paymentPage.supportLink").waitFor()
    // the error is tied to its field, and the page with it passes axe
    await expect(page.locator("#payin-paymentPage\\.supportLink").getAttribute("aria-describedby")).resolves.toContain("payin-paymentPage.supportLink-error")
    await accessible("payin-settings-page", "Settings → Pay-in with a field's error")

    // webhook health counts the sample deliveries
    await page.waitForFunction(
      () => Number(document.querySelector('[data-testid="payin-health-accepted"]')?.textContent) > 0,
      undefined,
      { timeout: 30_000 }
    )
  })

  it("Settings → Pay-in: shopper notifications are set from the form, a bad status URL template is refused", async () => {
    await page.goto(`${suite.demo.adminUrl}/settings/payin`)
    await page.getByTestId("payin-settings-page").waitFor()
    // on in the demo, from medusa-config
    await expect(page.getByTestId("payin-field-notifications.enabled").getAttribute("data-state")).resolves.toBe("checked")
    await expect(page.getByTestId("payin-source-notifications.enabled").getAttribute("data-source")).resolves.toBe("config")
    await expect(page.getByTestId("payin-field-notifications.channel").inputValue()).resolves.toBe("email")

    const url = page.getByTestId("payin-field-notifications.orderStatusUrl")
    await url.fill("https://shop.example.com/order/{id}")
    await page.getByTestId("payin-save").click()
    await page.getByTestId("payin-field-error-notifications.orderStatusUrl").waitFor()

    const template = `${suite.demo.storefrontUrl}/{country_code}/order/{order_id}`
    await url.fill(template)
    await page.getByTestId("payin-field-notifications.paidTemplate").fill("d-order-paid")
    await page.getByTestId("payin-save").click()
    await page.waitForFunction(
      () => document.querySelector('[data-testid="payin-source-notifications.paidTemplate"]')?.getAttribute("data-source") === "admin"
    )
    await page.reload()
    await page.getByTestId("payin-settings-page").waitFor()
    await expect(page.getByTestId("payin-field-notifications.paidTemplate").inputValue()).resolves.toBe("d-order-paid")
    await expect(page.getByTestId("payin-field-notifications.orderStatusUrl").inputValue()).resolves.toBe(template)
    await expect(page.getByTestId("payin-source-notifications.orderStatusUrl").getAttribute("data-source")).resolves.toBe("admin")
    await page.getByTestId("payin-field-notifications.orderStatusUrl").scrollIntoViewIfNeeded()
    await accessible("payin-section-notifications", "Settings → Pay-in, shopper notifications")
    await shot("settings-notifications")
    const saved = await suite.api("GET", "/admin/payin/settings/default", { admin: true })
    expect(saved.values.notifications).toMatchObject({ enabled: true, channel: "email", paidTemplate: "d-order-paid", orderStatusUrl: template })

    // switched off from the form, then everything back to medusa-config
    await page.getByTestId("payin-field-notifications.enabled").click()
    await page.getByTestId("payin-save").click()
    await page.waitForFunction(
      () => document.querySelector('[data-testid="payin-source-notifications.enabled"]')?.getAttribute("data-source") === "admin"
    )
    expect((await suite.api("GET", "/admin/payin/settings/default", { admin: true })).values.notifications.enabled).toBe(false)
    await suite.api("POST", "/admin/payin/settings/default", { admin: true, body: { notifications: null } })
    expect((await suite.api("GET", "/admin/payin/settings/default", { admin: true })).values.notifications.enabled).toBe(true)
  })

  it("Settings → Pay-in: each section of the instance saves what is typed, shown as the admin's, and resets", async () => {
    const before = await suite.api("GET", "/admin/payin/settings/default", { admin: true })
    const methods = before.values.allowedMethods.includes("card")
      ? before.values.allowedMethods.filter((m: string) => m !== "card")
      : [...before.values.allowedMethods, "card"]
    const timeout = String(before.values.timeoutMs + 5_000)
    await openSettings()
    try {
      // Connection, Payment Page, Checkout, Orders: one field or more of each, then one save
      await page.getByTestId("payin-field-timeoutMs").fill(timeout)
      await choose("payin-field-paymentPage.locale", "Русский (RU)")
      await page.getByTestId("payin-field-allowedBanks").fill("Sber\nTinkoff")
      await page.locator('[data-testid="payin-field-allowedMethods"] [data-method="card"]').click()
      await choose("payin-field-amountPolicy.mode", /^Range/)
      await page.getByTestId("payin-field-amountPolicy.tolerancePercent").fill("2.5")
      await page.getByTestId("payin-field-manualRefunds").click()
      await page.getByTestId("payin-save").click()
      await sourceIs("manualRefunds", "admin")

      const saved = await suite.api("GET", "/admin/payin/settings/default", { admin: true })
      expect(saved.values).toMatchObject({
        timeoutMs: Number(timeout),
        paymentPage: { locale: "RU" },
        allowedBanks: ["Sber", "Tinkoff"],
        amountPolicy: { mode: "range", tolerancePercent: 2.5 },
        manualRefunds: !before.values.manualRefunds,
      })
      expect([...saved.values.allowedMethods].sort()).toEqual([...methods].sort())
      for (const field of ["timeoutMs", "paymentPage.locale", "allowedBanks", "allowedMethods", "amountPolicy", "manualRefunds"]) {
        expect([field, saved.sources[field]]).toEqual([field, "admin"])
      }

      // the form shows what was saved, after a reload
      await openSettings()
      await expect(page.getByTestId("payin-field-timeoutMs").inputValue()).resolves.toBe(timeout)
      await expect(page.getByTestId("payin-field-paymentPage.locale").textContent()).resolves.toContain("Русский (RU)")
      await expect(page.getByTestId("payin-field-allowedBanks").inputValue()).resolves.toBe("Sber\nTinkoff")
      await expect(page.locator('[data-testid="payin-field-allowedMethods"] [data-method="card"]').getAttribute("data-state")).resolves.toBe(
        methods.includes("card") ? "checked" : "unchecked"
      )
      await expect(page.getByTestId("payin-field-amountPolicy.tolerancePercent").inputValue()).resolves.toBe("2.5")
      await expect(page.getByTestId("payin-field-manualRefunds").getAttribute("data-state")).resolves.toBe(
        before.values.manualRefunds ? "unchecked" : "checked"
      )
      await expect(page.getByTestId("payin-source-amountPolicy").getAttribute("data-source")).resolves.toBe("admin")

      // Reset puts a field back to where it came from
      await page.getByTestId("payin-reset-timeoutMs").click()
      await sourceIs("timeoutMs", before.sources.timeoutMs)
      await expect(page.getByTestId("payin-field-timeoutMs").inputValue()).resolves.toBe(String(before.values.timeoutMs))
    } finally {
      await suite.api("POST", "/admin/payin/settings/default", {
        admin: true,
        body: { timeoutMs: null, paymentPage: { locale: null }, allowedBanks: null, allowedMethods: null, amountPolicy: null, manualRefunds: null },
      })
    }
    const restored = await suite.api("GET", "/admin/payin/settings/default", { admin: true })
    expect(restored.values).toEqual(before.values)
  })

  it("Settings → Pay-in: the plugin-wide reconciliation, retention and alert settings save through their own container", async () => {
    const before = (await suite.api("GET", "/admin/payin/settings", { admin: true })).plugin
    const typed = {
      reconcileAfterSeconds: before.values.reconcileAfterSeconds + 15,
      reconcileConcurrency: before.values.reconcileConcurrency === 3 ? 4 : 3,
      lockTtlSeconds: before.values.lockTtlSeconds + 5,
      webhookRetentionDays: before.values.webhookRetentionDays + 15,
      historyRetentionDays: before.values.historyRetentionDays + 30,
      pruneBatchSize: before.values.pruneBatchSize + 100,
      alertMinIntervalMinutes: before.values.alertMinIntervalMinutes + 30,
      alertEmailChannel: "ops-email",
      healthMissedWebhooks: before.values.healthMissedWebhooks + 1,
      apiKeyMaxAgeDays: before.values.apiKeyMaxAgeDays + 1,
    }
    await openSettings()
    const container = page.getByTestId("payin-plugin-settings")
    try {
      for (const [field, value] of Object.entries(typed)) {
        await container.getByTestId(`payin-field-${field}`).fill(String(value))
      }
      await container.getByTestId("payin-plugin-save").click()
      await sourceIs("reconcileConcurrency", "admin")

      const saved = (await suite.api("GET", "/admin/payin/settings", { admin: true })).plugin
      expect(saved.values).toEqual({ ...before.values, ...typed })
      for (const field of Object.keys(typed)) expect([field, saved.sources[field]]).toEqual([field, "admin"])
      // the instance's settings were not touched by the plugin-wide save
      expect((await suite.api("GET", "/admin/payin/settings/default", { admin: true })).sources.timeoutMs).not.toBe("admin")

      await openSettings()
      for (const [field, value] of Object.entries(typed)) {
        await expect(page.getByTestId(`payin-field-${field}`).inputValue()).resolves.toBe(String(value))
      }
      await page.getByTestId("payin-health-reconciliation").waitFor()
      await page.getByTestId("payin-health-retention").waitFor()
      await page.getByTestId("payin-health-last-check").waitFor()
      // a choice per alertable signal, all on by default
      expect(await page.locator('[data-testid="payin-field-alertSignals"] [data-method][data-state="checked"]').count()).toBe(before.values.alertSignals.length)
      await accessible("payin-plugin-settings", "Settings → Pay-in, plugin-wide settings")

      // a value out of the option's range: the field's error, nothing saved
      await page.getByTestId("payin-field-reconcileConcurrency").fill("100")
      await page.getByTestId("payin-plugin-save").click()
      await page.getByTestId("payin-field-error-reconcileConcurrency").waitFor()
      expect((await suite.api("GET", "/admin/payin/settings", { admin: true })).plugin.values.reconcileConcurrency).toBe(typed.reconcileConcurrency)
    } finally {
      await suite.api("POST", "/admin/payin/settings", { admin: true, body: Object.fromEntries(Object.keys(typed).map((k) => [k, null])) })
    }
    expect((await suite.api("GET", "/admin/payin/settings", { admin: true })).plugin.values).toEqual(before.values)
  })

  it("Test connection: success, then the whitelist failure with the address to add", async () => {
    await page.goto(`${suite.demo.adminUrl}/settings/payin`)
    await page.getByTestId("payin-test-connection").click()
    await expect(page.getByTestId("payin-test-result").getAttribute("data-ok")).resolves.toBe("true")
    await accessible("payin-settings-page", "Settings → Pay-in, Test connection succeeded")
    await shot("settings")

    const { whitelist } = await sandbox("GET", "/_sandbox/merchant")
    await sandbox("PUT", "/_sandbox/merchant", { whitelist: ["203.0.113.0/24"] })
    try {
      await page.getByTestId("payin-test-connection").click()
      await page.locator('[data-testid="payin-test-result"][data-ok="false"]').waitFor()
      await expect(page.getByTestId("payin-test-result").getAttribute("data-kind")).resolves.toBe("ip_not_whitelisted")
      await expect(page.getByTestId("payin-outgoing-address").textContent()).resolves.toContain("127.0.0.1")
      await accessible("payin-section-connection", "Settings → Pay-in, Test connection refused (whitelist)")
    } finally {
      await sandbox("PUT", "/_sandbox/merchant", { whitelist })
    }
    // restored: the connection works again
    await page.getByTestId("payin-test-connection").click()
    await page.locator('[data-testid="payin-test-result"][data-ok="true"]').waitFor()
  })

  it("the order widget shows the paid order's pay-in", async () => {
    await page.goto(`${suite.demo.adminUrl}/orders/${suite.demo.samples.paid.orderId}`)
    await page.getByTestId("payin-order-widget").waitFor()
    await expect(page.getByTestId("payin-widget-status").getAttribute("data-status")).resolves.toBe("closed")
    await expect(page.getByTestId("payin-widget-amounts").textContent()).resolves.toContain("1790.00 RUB")
    await expect(page.getByTestId("payin-widget-requisite").textContent()).resolves.toMatch(/\d{4}/)
    await page.getByTestId("payin-order-widget").scrollIntoViewIfNeeded()
    await accessible("payin-order-widget", "the order widget, paid")
    await shot("order-widget")
  })

  it("an underpaid order (1700.00 of 1790.00 after a recalculation): Medusa's order view shows what arrived as paid, partly captured", async () => {
    const orderId = suite.demo.samples.recalculated.orderId!
    // Medusa's own records, through its admin API
    const { order } = await suite.api("GET", `/admin/orders/${orderId}?fields=payment_status,summary,*payment_collections`, { admin: true })
    expect(order.payment_status).toBe("partially_captured")
    expect(Number(order.payment_collections[0].captured_amount)).toBe(1700)
    expect(Number(order.summary.paid_total)).toBe(1700)
    expect(Number(order.summary.pending_difference)).toBe(90)
    // the same figures on the admin's order page
    await page.goto(`${suite.demo.adminUrl}/orders/${orderId}`)
    await page.getByTestId("payin-order-widget").waitFor()
    await page.getByText("Partially captured").first().waitFor()
    const paidRow = page.getByText("Total paid by customer").locator("xpath=..")
    await expect(paidRow.textContent()).resolves.toMatch(/1,700\.00/)
    await expect(paidRow.textContent()).resolves.not.toMatch(/1,790\.00/)
    // the pay-in widget: what Medusa booked and what is still owed
    await expect(page.getByTestId("payin-widget-booked").textContent()).resolves.toContain("1700.00 RUB")
    await expect(page.getByTestId("payin-widget-missing").textContent()).resolves.toContain("90.00 RUB")
    await page.getByTestId("payin-order-widget").scrollIntoViewIfNeeded()
    await accessible("payin-order-widget", "the order widget, underpaid")
    await shot("order-underpaid")
  })

  it("transactions page: filters, the detail, and Reconcile now applies a payment whose webhook never came", async () => {
    await page.goto(`${suite.demo.adminUrl}/payin`)
    await page.getByTestId("payin-tx-row").first().waitFor()
    expect(await page.getByTestId("payin-tx-row").count()).toBeGreaterThanOrEqual(4)
    await accessible("payin-transactions-page", "the transactions list")
    // each row's id is a link to its detail, for the keyboard (the row's own click is the mouse's)
    expect(await page.getByTestId("payin-tx-detail-link").count()).toBe(await page.getByTestId("payin-tx-row").count())
    await shot("transactions")
    // rows link to their orders
    expect(await page.getByTestId("payin-tx-order-link").count()).toBeGreaterThanOrEqual(4)

    // filter by status and by flag through the URL the filters write
    await page.goto(`${suite.demo.adminUrl}/payin?status=dispute`)
    await page.locator(`[data-testid="payin-tx-row"][data-id="${suite.demo.samples.dispute.ledgerId}"]`).waitFor()
    expect(await page.getByTestId("payin-tx-row").count()).toBe(1)
    for (const [flag, sample] of [
      ["late_payment", suite.demo.samples.late],
      ["stray_payment", suite.demo.samples.stray],
    ] as const) {
      await page.goto(`${suite.demo.adminUrl}/payin?flag=${flag}`)
      await page.locator(`[data-testid="payin-tx-row"][data-id="${sample.ledgerId}"]`).waitFor()
      expect(await page.getByTestId("payin-tx-row").count()).toBe(1)
    }

    // the awaiting pay-in is paid while webhooks are off: only a lookup can tell the store
    const { webhookUrl } = await sandbox("GET", "/_sandbox/merchant")
    expect(webhookUrl).toBe(suite.demo.webhookUrl)
    await sandbox("PUT", "/_sandbox/merchant", { webhookUrl: null })
    try {
      await sandbox("POST", `/_sandbox/transactions/${suite.demo.samples.awaiting.payinId}/pay`)
      await page.goto(`${suite.demo.adminUrl}/payin`)
      await page.locator(`[data-testid="payin-tx-row"][data-id="${suite.demo.samples.awaiting.ledgerId}"]`).click()
      await page.getByTestId("payin-tx-detail").waitFor()
      await expect(page.getByTestId("payin-tx-status").getAttribute("data-status")).resolves.toBe("active")
      await page.getByTestId("payin-reconcile").click()
      await page.locator('[data-testid="payin-reconcile-result"][data-to="closed"]').waitFor()
      await page.locator('[data-testid="payin-tx-status"][data-status="closed"]').waitFor()
      await page.locator('[data-testid="payin-tx-history"] [data-source="admin"][data-to="closed"]').waitFor()
      await accessible("payin-tx-detail", "a transaction's detail after Reconcile now")
      await shot("transaction-detail")
    } finally {
      await sandbox("PUT", "/_sandbox/merchant", { webhookUrl })
    }
    // and the order it belongs to is now paid
    await page.goto(`${suite.demo.adminUrl}/orders/${suite.demo.samples.awaiting.orderId}`)
    await page.locator('[data-testid="payin-widget-status"][data-status="closed"]').waitFor()
  })

  it("Health: the store's address refused by the service shows as a failing signal on the Pay-ins page, with what to do and where; its alert reaches the admin's notifications", async () => {
    await page.goto(`${suite.demo.adminUrl}/payin`)
    await page.locator('[data-testid="payin-health"][data-state]').waitFor()
    await page.getByTestId("payin-transactions-page").waitFor()

    const { whitelist } = await sandbox("GET", "/_sandbox/merchant")
    await sandbox("PUT", "/_sandbox/merchant", { whitelist: ["203.0.113.0/24"] })
    const failingSince = Date.now()
    try {
      // a call to the service the store makes (Test connection does not count): Reconcile now, refused
      const reconcile = () => suite.api("POST", `/admin/payin/transactions/${suite.demo.samples.paid.ledgerId}/reconcile`, { admin: true })
      await expect(reconcile()).rejects.toThrow(/502 .*ip_not_whitelisted/)
      // the section answers from the database: a reload shows it (the page itself refetches every 30 s)
      await page.reload()
      const row = page.locator('[data-testid="payin-health-signal-service_ip"][data-state="failing"]')
      await row.waitFor()
      await expect(page.getByTestId("payin-health").getAttribute("data-state")).resolves.toBe("failing")
      // its state in words, the address the service named, what to do, where
      await expect(row.getByText("Failing", { exact: true }).count()).resolves.toBeGreaterThan(0)
      await expect(page.getByTestId("payin-health-signal-service_ip-sentence").textContent()).resolves.toContain("127.0.0.1")
      await expect(page.getByTestId("payin-health-signal-service_ip-action").textContent()).resolves.toBe(
        "What to do: Add 127.0.0.1 to the IP whitelist in the merchant panel."
      )
      const link = page.getByTestId("payin-health-signal-service_ip-link")
      await expect(link.getAttribute("href")).resolves.toBe("/app/settings/payin#payin-section-connection")
      await page.getByTestId("payin-health").scrollIntoViewIfNeeded()
      await accessible("payin-health", "the Health section, a failing signal")

      // the periodic check (every 5 s here) sends the incident's alert to the feed: the bell shows it
      const alert = await eventually(
        "the service_ip alert in the feed",
        async () => {
          const { notifications } = await suite.api("GET", "/admin/notifications?channel=feed&limit=50&order=-created_at", { admin: true })
          return (notifications as { data: Record<string, unknown> | null }[]).find((n) => n.data?.signal === "service_ip" && n.data?.state === "failing")?.data
        },
        90_000,
        1_000
      )
      const title = String(alert!.title)
      expect(title).toBe("Pay-ins: the service refuses this store's IP address (default)")
      await page.locator('div.border-b.p-3 button[aria-haspopup="dialog"]').last().click()
      const panel = page.getByRole("dialog", { name: "Notifications" })
      await panel.getByText(title, { exact: true }).first().waitFor()
      await shot("health") // the section under the open notification panel
      await page.keyboard.press("Escape")

      // the link leads to the connection settings
      await link.click()
      await page.waitForURL(/\/settings\/payin#payin-section-connection$/)
      await page.getByTestId("payin-section-connection").waitFor()
      console.log(`[browser] health: failing shown, alerted and followed in ${((Date.now() - failingSince) / 1000).toFixed(1)} s`)
    } finally {
      await sandbox("PUT", "/_sandbox/merchant", { whitelist })
    }
    // accepted again: the signal is no longer failing (a warning: refused earlier this hour)
    await suite.api("POST", `/admin/payin/transactions/${suite.demo.samples.paid.ledgerId}/reconcile`, { admin: true })
    const health = await suite.api("GET", "/admin/payin/health", { admin: true })
    expect(health.signals.find((s: { id: string }) => s.id === "service_ip").state).toBe("warning")
  })

  it("Insights: the demo's pay-ins as counted here from the ledger's rows; each figure links to its pay-ins; the charts are drawn", async () => {
    // the ledger's rows through the admin API, counted here, independently of the rollups
    const rows: any[] = []
    let cursor = ""
    do {
      const listed = await suite.api("GET", `/admin/payin/transactions?limit=100${cursor ? `&cursor=${cursor}` : ""}`, { admin: true })
      rows.push(...listed.transactions)
      cursor = listed.next_cursor ?? ""
    } while (cursor)
    const days = rows.map((r) => r.created_at.slice(0, 10)).sort()
    const [from, to] = [days[0], days[days.length - 1]]
    const flagged = (r: any, ...flags: string[]) => flags.some((f) => r.flags?.[f])
    const expected: Record<string, number> = {
      created: rows.length,
      offered: rows.filter((r) => r.service_id).length,
      paid: rows.filter((r) => r.paid_at).length,
      ended_unpaid: rows.filter((r) => !r.paid_at && r.status === "canceled").length,
      failed: rows.filter((r) => r.status === "failed").length,
      disputed: rows.filter((r) => r.disputed_at).length,
      underpaid: rows.filter((r) => flagged(r, "underpayment")).length,
      overpaid: rows.filter((r) => flagged(r, "overpayment")).length,
      stray: rows.filter((r) => flagged(r, "stray_payment", "late_payment")).length,
    }
    // the demo's samples make each of these happen at least once
    for (const figure of ["paid", "ended_unpaid", "disputed", "stray"]) expect([figure, expected[figure] > 0]).toEqual([figure, true])
    await page.goto(`${suite.demo.adminUrl}/payin/insights?from=${from}&to=${to}`)
    await page.getByTestId("payin-insight-created-value").waitFor()
    for (const [figure, value] of Object.entries(expected)) {
      expect([figure, await page.getByTestId(`payin-insight-${figure}-value`).textContent()]).toEqual([figure, value.toLocaleString("en-US")])
    }
    const banks = new Set(rows.filter((r) => r.service_id).map((r) => r.bank ?? ""))
    expect(await page.getByTestId("payin-insights-bank-row").count()).toBe(banks.size)
    // the library loads when the charts are drawn
    await page.locator('[data-testid="payin-insights-volume-chart"][data-drawn="true"] canvas').first().waitFor()
    await page.locator('[data-testid="payin-insights-bank-chart"][data-drawn="true"] canvas').first().waitFor()
    // the charts' figures as text: a table for assistive technology under each canvas
    expect(await page.locator('[data-testid="payin-insights-bank-table"] tbody tr').count()).toBeGreaterThan(0)
    expect(await page.locator('[data-testid="payin-insights-volume-table"] tbody tr').count()).toBeGreaterThan(0)
    await accessible("payin-insights-page", "insights")
    await shot("insights")
    // a figure leads to the pay-ins behind it
    await page.getByTestId("payin-insight-paid").click()
    await page.waitForURL(/\/payin\?.*paid=true/)
    await page.getByTestId("payin-transactions-linked-filters").waitFor()
    await page.getByTestId("payin-tx-row").first().waitFor()
    await accessible("payin-transactions-page", "the transactions list filtered from insights")
    expect(await page.getByTestId("payin-tx-row").count()).toBe(Math.min(expected.paid, 20))
    // the same figures as CSV
    const csv = await page.evaluate(async (url) => (await fetch(url, { credentials: "include" })).text(), `${suite.demo.backendUrl}/admin/payin/insights?from=${from}&to=${to}&format=csv`)
    expect(csv).toContain(`funnel,,paid,${expected.paid}\r\n`)
  })

  it("speaks Russian when the admin's language is Russian", async () => {
    const { context, page: ru } = await adminLogin(suite.browser, suite.demo.adminUrl, { email: suite.demo.adminEmail, password: suite.demo.adminPassword }, { language: "ru" })
    try {
      await ru.goto(`${suite.demo.adminUrl}/settings/payin`)
      await ru.getByTestId("payin-settings-page").waitFor()
      await ru.getByText("Проверить подключение").waitFor()
      await accessible("payin-settings-page", "Settings → Pay-in in Russian", ru)
      await ru.goto(`${suite.demo.adminUrl}/payin`)
      await ru.getByText("Все пей-ины, которые запрашивал магазин", { exact: false }).waitFor()
      // the Health section in Russian, its state in words
      await ru.getByTestId("payin-health").getByRole("heading", { name: "Состояние" }).waitFor()
      await expect(ru.getByTestId("payin-health-state").textContent()).resolves.toMatch(/^(В порядке|Предупреждение|Сбой)$/)
    } finally {
      await context.close()
    }
  })
}
