import { TooltipProvider } from "@medusajs/ui"
import i18next from "i18next"
import { renderToStaticMarkup } from "react-dom/server"
import { initReactI18next } from "react-i18next"
import { StaticRouter } from "react-router-dom"
import en from "../../../i18n/json/en.json"
import ru from "../../../i18n/json/ru.json"
import type { Health, HealthSignal } from "../../../lib/health-api"
import { SIGNAL_GROUPS } from "../../../lib/health-text"
import { HealthBody } from "../health-section"

const AT = "2026-11-28T09:15:00.000Z"

const ok = (id: string, group: string, provider_id: string | null = "pp_payin_default"): HealthSignal => ({
  id,
  group,
  provider_id,
  state: "ok",
  since: AT,
  figure: {},
  summary: `English summary of ${id}`,
  action: `English action of ${id}`,
  link: null,
  alerts: true,
  alerted_at: null,
  alert_error: null,
})

/** Every signal of the contract, OK (jobs_overdue for the whole plugin). */
const allOk = (): HealthSignal[] =>
  Object.entries(SIGNAL_GROUPS).flatMap(([group, ids]) => ids.map((id) => ok(id, group, id === "jobs_overdue" ? null : "pp_payin_default")))

const health = (signals: HealthSignal[]): Health => ({
  checked_at: AT,
  state: signals.some((s) => s.state === "failing") ? "failing" : signals.some((s) => s.state === "warning") ? "warning" : "ok",
  check_interval_seconds: 60,
  alerts: { enabled: true, email_recipients: 2, min_interval_minutes: 60, delivery_error: null },
  signals,
})

const failing = (): Health =>
  health(
    allOk().map((s) =>
      s.id === "service_ip"
        ? { ...s, state: "failing", figure: { refused: 2, last_at: AT, address: "203.0.113.7" }, link: "/settings/payin#payin-section-connection", alerted_at: AT }
        : s.id === "stray_payments"
          ? { ...s, state: "warning", figure: { count: 1, days: 30 }, link: "/payin?flag=stray_payment" }
          : s
    )
  )

/** Drawn as the dashboard draws it: its router, i18next in `language`, the tooltip provider. */
function render(language: "en" | "ru", data: Health): string {
  void i18next
    .createInstance()
    .use(initReactI18next)
    .init({ lng: language, resources: { en: { translation: en }, ru: { translation: ru } }, interpolation: { escapeValue: false }, initImmediate: false })
  return renderToStaticMarkup(
    <StaticRouter location="/app/payin">
      <TooltipProvider>
        <HealthBody health={data} />
      </TooltipProvider>
    </StaticRouter>
  )
}

/** The element with this test id, as markup (its own tag up to its closing one). */
function element(html: string, testId: string): string {
  const start = html.indexOf(`data-testid="${testId}"`)
  if (start < 0) throw new Error(`no ${testId}`)
  const open = html.lastIndexOf("<", start)
  const tag = /^<(\w+)/.exec(html.slice(open))![1]
  let depth = 0
  const re = new RegExp(`<${tag}[\\s>]|</${tag}>`, "g")
  re.lastIndex = open
  for (let m = re.exec(html); m; m = re.exec(html)) {
    depth += m[0].startsWith("</") ? -1 : 1
    if (depth === 0) return html.slice(open, m.index + m[0].length)
  }
  throw new Error(`${testId} not closed`)
}

describe("the Health section", () => {
  it.each(["en", "ru"] as const)("shows each signal that is not OK under its group, with its state in words, in %s", (language) => {
    const html = render(language, failing())
    const row = element(html, "payin-health-signal-service_ip")
    expect(row).toMatch(/^<li[^>]*data-state="failing"/)
    // the state as text next to its colour, the title, the address, since when, what to do, where
    expect(row).toContain(language === "en" ? ">Failing<" : ">Сбой<")
    expect(row).toContain(language === "en" ? "This store&#x27;s address is not whitelisted" : "Адрес магазина не в белом списке")
    expect(row).toContain("203.0.113.7")
    expect(row).toContain(language === "en" ? "Add 203.0.113.7 to the IP whitelist in the merchant panel." : "Добавьте 203.0.113.7 в белый список IP в кабинете мерчанта.")
    expect(row).toMatch(/<a [^>]*href="\/settings\/payin#payin-section-connection"[^>]*>[^<]+<\/a>/)
    expect(element(html, "payin-health-signal-service_ip-since")).toContain(language === "en" ? "Since " : "С ")
    expect(element(html, "payin-health-group-service")).toContain(language === "en" ? ">Service<" : ">Сервис<")
    expect(element(html, "payin-health-signal-stray_payments")).toMatch(/^<li[^>]*data-state="warning"/)
    expect(element(html, "payin-health-signal-stray_payments")).toMatch(/href="\/payin\?flag=stray_payment"/)
    // the failing group before the money group, the OK signals only in the collapsed list
    expect(html.indexOf("payin-health-group-service")).toBeLessThan(html.indexOf("payin-health-group-money"))
    expect(html).not.toContain("payin-health-group-webhooks")
    expect(element(html, "payin-health-ok-list")).toMatch(/^<details/)
    expect(element(html, "payin-health-ok-list")).toContain('data-testid="payin-health-signal-webhooks_missing" data-state="ok"')
    expect(html).not.toContain("payin-health-all-ok")
    // no English from the API, no key without its text
    expect(html).not.toContain("English")
    expect(html).not.toMatch(/payin\.(health|common)\./)
  })

  it.each(["en", "ru"] as const)("says all is OK in one line, with every signal in a collapsed list, in %s", (language) => {
    const html = render(language, health(allOk()))
    expect(element(html, "payin-health-all-ok")).toContain(language === "en" ? "All signals OK, checked " : "Все сигналы в порядке, проверено ")
    const list = element(html, "payin-health-ok-list")
    expect(list).toMatch(/^<details/)
    expect(list).not.toMatch(/<details[^>]* open/)
    expect(list.match(/data-testid="payin-health-signal-/g)?.length).toBe(Object.values(SIGNAL_GROUPS).flat().length)
    expect(html).not.toContain("payin-health-group-")
    expect(html).not.toContain("English")
    expect(html).not.toMatch(/payin\.(health|common)\./)
  })

  it.each(["en", "ru"] as const)("says when alerts did not go out (a store without a feed provider), in %s", (language) => {
    const error = 'no notification provider for the "feed" channel, so pay-in alerts do not reach the admin\'s notification panel'
    const quiet = render(language, health(allOk()))
    expect(quiet).not.toContain("payin-health-delivery-error")
    const html = render(language, { ...health(allOk()), alerts: { enabled: true, email_recipients: 1, min_interval_minutes: 60, delivery_error: error } })
    const line = element(html, "payin-health-delivery-error")
    expect(line).toContain(language === "en" ? "Some alerts did not go out: " : "Не все оповещения удалось отправить: ")
    expect(line).toContain("no notification provider for the &quot;feed&quot; channel")
  })

  it("with two instances, names each row's instance and suffixes its test id with the provider", () => {
    const signals = [...failing().signals, { ...failing().signals.find((s) => s.id === "service_ip")!, provider_id: "pp_payin_second" }]
    const html = render("en", health(signals))
    expect(element(html, "payin-health-signal-service_ip-pp_payin_default")).toContain("Instance default")
    expect(element(html, "payin-health-signal-service_ip-pp_payin_second")).toContain("Instance second")
    // the plugin's own signal has no instance
    expect(html).toContain('data-testid="payin-health-signal-jobs_overdue"')
  })
})
