import type { TransactionStatus } from "../client/schemas"
import type { TxRecord } from "./store"

/**
 * Server-rendered hosted Payment Page: no external assets, a tiny inline script (copy buttons and
 * the countdown) allowed by a per-response CSP nonce, every interpolated value HTML-escaped.
 */

export type Locale = "en" | "ru"

export function pickLocale(value: string | undefined): Locale {
  return value && value.trim().toLowerCase().startsWith("ru") ? "ru" : "en"
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "`": "&#96;" }

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"'`]/g, (ch) => ESCAPES[ch])
}

const TEXT = {
  en: {
    title: "Payment",
    sandbox: "Sandbox payment page: no real money moves",
    amount: "Amount",
    bank: "Bank",
    owner: "Recipient",
    requisite: { card: "Card number", account: "Account number", phone: "Phone number", link: "Payment link", other: "Requisite" },
    sbp: "SBP phone number",
    copy: "Copy",
    copied: "Copied",
    timeLeft: "Time left",
    instructions: "Transfer exactly the amount shown to the requisite below before the time runs out.",
    paid: "I have paid",
    cancel: "Cancel payment",
    support: "Need help? Contact support",
    back: "Return to the store",
    status: {
      active: "Awaiting payment",
      closed: "Payment received",
      canceled: "Payment canceled",
      dispute: "Payment under dispute",
      checking: "Payment is being checked",
      re_calculation: "Payment amount recalculated",
    } satisfies Record<TransactionStatus, string>,
    resultSuccess: "Payment completed. You can return to the store.",
    resultFailure: "Payment was not completed.",
    notFound: "Payment not found",
    supportPage: "Sandbox support: this is a test environment, nobody will answer.",
  },
  ru: {
    title: "Оплата",
    sandbox: "Тестовая страница оплаты: реальные деньги не списываются",
    amount: "Сумма",
    bank: "Банк",
    owner: "Получатель",
    requisite: { card: "Номер карты", account: "Номер счёта", phone: "Номер телефона", link: "Ссылка для оплаты", other: "Реквизит" },
    sbp: "Телефон СБП",
    copy: "Копировать",
    copied: "Скопировано",
    timeLeft: "Осталось времени",
    instructions: "Переведите точно указанную сумму по реквизитам ниже, пока не истекло время.",
    paid: "Я оплатил",
    cancel: "Отменить платёж",
    support: "Нужна помощь? Напишите в поддержку",
    back: "Вернуться в магазин",
    status: {
      active: "Ожидает оплаты",
      closed: "Платёж получен",
      canceled: "Платёж отменён",
      dispute: "Платёж оспаривается",
      checking: "Платёж на проверке",
      re_calculation: "Сумма платежа пересчитана",
    } satisfies Record<TransactionStatus, string>,
    resultSuccess: "Платёж завершён. Можно вернуться в магазин.",
    resultFailure: "Платёж не завершён.",
    notFound: "Платёж не найден",
    supportPage: "Поддержка песочницы: это тестовая среда, здесь никто не ответит.",
  },
} as const

export function texts(locale: Locale) {
  return TEXT[locale]
}

/** "1,234.56" (en) or "1 234,56" (ru, non-breaking spaces) for cents. */
export function formatAmountForLocale(cents: number, locale: Locale): string {
  const whole = String(Math.floor(cents / 100))
  const fraction = String(cents % 100).padStart(2, "0")
  const separator = locale === "ru" ? "\u00a0" : ","
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, separator)
  return `${grouped}${locale === "ru" ? "," : "."}${fraction}`
}

/** "mm:ss" (or "h:mm:ss") of a non-negative number of seconds. */
export function formatDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds))
  const hours = Math.floor(s / 3600)
  const minutes = Math.floor((s % 3600) / 60)
  const seconds = s % 60
  const mmss = `${String(minutes).padStart(2, "0")}:${String(seconds).padStart(2, "0")}`
  return hours > 0 ? `${hours}:${mmss}` : mmss
}

const STYLE = `body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f4f5f7;margin:0;color:#1b1d21}
main{max-width:480px;margin:32px auto;background:#fff;border-radius:12px;padding:24px;box-shadow:0 1px 4px rgba(0,0,0,.08)}
h1{font-size:22px;margin:0 0 4px}.note{font-size:12px;color:#8a6d00;background:#fff6d6;padding:6px 8px;border-radius:6px}
.status{font-weight:600;margin:12px 0}dl{display:grid;grid-template-columns:auto 1fr;gap:8px 12px;margin:16px 0}
dt{color:#666}dd{margin:0;word-break:break-all}.amount{font-size:26px;font-weight:700}
button{font:inherit;cursor:pointer;border-radius:8px;border:1px solid #c9ccd1;background:#fff;padding:4px 10px}
.primary{background:#1f6feb;color:#fff;border-color:#1f6feb;padding:10px 16px;width:100%;margin-top:12px}
.secondary{width:100%;margin-top:8px;padding:8px 16px}.timer{font-variant-numeric:tabular-nums;font-weight:600}
a{color:#1f6feb}footer{margin-top:16px;font-size:14px}`

function layout(locale: Locale, title: string, body: string, nonce: string, script = ""): string {
  return `<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style nonce="${escapeHtml(nonce)}">${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
${script ? `<script nonce="${escapeHtml(nonce)}">${script}</script>` : ""}
</body>
</html>
`
}

/** Content-Security-Policy for a page rendered with `nonce`. */
export function contentSecurityPolicy(nonce: string): string {
  return `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; img-src data:; base-uri 'none'; frame-ancestors 'none'`
}

export interface PaymentPageView {
  record: TxRecord
  locale: Locale
  secondsLeft: number
  supportLink: string
  successUrl: string
  failureUrl: string
  /** Path of the page itself, e.g. /pay/{id} (forms post below it). */
  pagePath: string
  nonce: string
}

function requisiteLabel(record: TxRecord, locale: Locale): string {
  const t = TEXT[locale].requisite
  switch (record.method) {
    case "card":
    case "quasi":
      return t.card
    case "account":
      return t.account
    case "phone_number":
    case "mobile_comm":
      return t.phone
    case "link":
    case "deeplink":
    case "qr":
      return t.link
    default:
      return t.other
  }
}

const COPY_AND_TIMER_SCRIPT = `(function(){
document.querySelectorAll("[data-copy]").forEach(function(b){b.addEventListener("click",function(){
var v=b.getAttribute("data-copy"),l=b.getAttribute("data-copied"),o=b.textContent;
function done(){b.textContent=l;setTimeout(function(){b.textContent=o},1500)}
if(navigator.clipboard){navigator.clipboard.writeText(v).then(done,done)}else{var t=document.createElement("textarea");t.value=v;document.body.appendChild(t);t.select();try{document.execCommand("copy")}catch(e){}document.body.removeChild(t);done()}
})});
var el=document.getElementById("time-left");if(!el)return;var left=Number(el.getAttribute("data-seconds"));
function fmt(s){s=Math.max(0,s);var h=Math.floor(s/3600),m=Math.floor(s%3600/60),x=s%60;var mm=(m<10?"0":"")+m+":"+(x<10?"0":"")+x;return h>0?h+":"+mm:mm}
setInterval(function(){left-=1;el.textContent=fmt(left);if(left===0){setTimeout(function(){location.reload()},1500)}},1000);
})();`

function copyButton(value: string, t: (typeof TEXT)[Locale]): string {
  return `<button type="button" data-copy="${escapeHtml(value)}" data-copied="${escapeHtml(t.copied)}">${escapeHtml(t.copy)}</button>`
}

export function renderPaymentPage(view: PaymentPageView): string {
  const { record, locale } = view
  const t = TEXT[locale]
  const amount = `${formatAmountForLocale(record.cents, locale)} ${record.fiatCurrency}`
  const active = record.status === "active"
  const rows = [
    `<dt>${escapeHtml(t.amount)}</dt><dd><span class="amount" id="amount">${escapeHtml(amount)}</span> ${copyButton(
      (record.cents / 100).toFixed(2),
      t
    )}</dd>`,
    `<dt>${escapeHtml(t.bank)}</dt><dd id="bank">${escapeHtml(record.bank)}</dd>`,
    `<dt>${escapeHtml(requisiteLabel(record, locale))}</dt><dd><span id="requisite">${escapeHtml(
      record.requisite.requisites
    )}</span> ${copyButton(record.requisite.requisites, t)}</dd>`,
  ]
  if (record.requisite.sbpNumber) {
    rows.push(
      `<dt>${escapeHtml(t.sbp)}</dt><dd><span id="sbp">${escapeHtml(record.requisite.sbpNumber)}</span> ${copyButton(
        record.requisite.sbpNumber,
        t
      )}</dd>`
    )
  }
  rows.push(`<dt>${escapeHtml(t.owner)}</dt><dd id="owner">${escapeHtml(record.requisite.ownerName)}</dd>`)
  if (active) {
    rows.push(
      `<dt>${escapeHtml(t.timeLeft)}</dt><dd><span class="timer" id="time-left" data-seconds="${Math.max(
        0,
        Math.floor(view.secondsLeft)
      )}">${escapeHtml(formatDuration(view.secondsLeft))}</span></dd>`
    )
  }
  const actions = active
    ? `<p>${escapeHtml(t.instructions)}</p>
<form method="post" action="${escapeHtml(view.pagePath)}/paid"><button class="primary" type="submit" id="paid">${escapeHtml(t.paid)}</button></form>
<form method="post" action="${escapeHtml(view.pagePath)}/cancel"><button class="secondary" type="submit" id="cancel">${escapeHtml(t.cancel)}</button></form>`
    : record.status === "closed"
      ? `<p><a id="back" href="${escapeHtml(view.successUrl)}">${escapeHtml(t.back)}</a></p>`
      : record.status === "canceled"
        ? `<p><a id="back" href="${escapeHtml(view.failureUrl)}">${escapeHtml(t.back)}</a></p>`
        : ""
  const body = `<h1>${escapeHtml(t.title)}</h1>
<p class="note">${escapeHtml(t.sandbox)}</p>
<p class="status" id="status" data-status="${escapeHtml(record.status)}">${escapeHtml(t.status[record.status])}</p>
<dl>
${rows.join("\n")}
</dl>
${actions}
<footer><a id="support" href="${escapeHtml(view.supportLink)}" rel="noopener noreferrer">${escapeHtml(t.support)}</a></footer>`
  return layout(locale, `${t.title} ${amount}`, body, view.nonce, COPY_AND_TIMER_SCRIPT)
}

export function renderMessagePage(locale: Locale, title: string, message: string, nonce: string, link?: { href: string; text: string }): string {
  const body = `<h1>${escapeHtml(title)}</h1>
<p class="note">${escapeHtml(TEXT[locale].sandbox)}</p>
<p id="message">${escapeHtml(message)}</p>
${link ? `<p><a id="link" href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a></p>` : ""}`
  return layout(locale, title, body, nonce)
}
