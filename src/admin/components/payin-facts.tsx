// What the service said about one pay-in: amounts, requisite, Payment Page, dispute, flags.
// Shared by the detail page and the order widget.
import { Text } from "@medusajs/ui"
import { useTranslation } from "react-i18next"
import type { TransactionDetail } from "../lib/transactions-api"
import { Flags, Row, formatAmount, formatDate } from "./common"

/** A service-supplied URL, only when it is http(s) (never javascript:, data: …). */
export function safeHttpUrl(url: string | null | undefined): string | null {
  if (!url) return null
  try {
    const parsed = new URL(url)
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null
  } catch {
    return null
  }
}

export function AmountFacts({ tx }: { tx: TransactionDetail }) {
  const { t, i18n } = useTranslation()
  return (
    <div data-testid="payin-widget-amounts" className="divide-y">
      <Row label={t("payin.detail.fiat")}>{formatAmount(tx.fiat_amount ?? tx.amount, tx.fiat_currency ?? tx.currency_code)}</Row>
      {/* the service's digit strings, as given: the spec does not state their unit */}
      <Row label={t("payin.detail.crypto")}>{tx.crypto_amount ?? "—"}</Row>
      <Row label={t("payin.detail.cryptoAsset")}>
        {tx.crypto_currency ? `${tx.crypto_currency.toUpperCase()}${tx.crypto_network ? ` (${tx.crypto_network.toUpperCase()})` : ""}` : "—"}
      </Row>
      <Row label={t("payin.detail.rate")}>{tx.currency_rate ?? "—"}</Row>
      <Row label={t("payin.detail.fee")}>{tx.merchant_fee ?? "—"}</Row>
      <MoneyFlagFacts tx={tx} />
      {tx.status === "active" && <Row label={t("payin.detail.expires")}>{formatDate(tx.expires_at, i18n.language)}</Row>}
    </div>
  )
}

/** What Medusa booked of an underpaid or overpaid pay-in, and the difference (from its flag). */
function MoneyFlagFacts({ tx }: { tx: TransactionDetail }) {
  const { t } = useTranslation()
  const money = tx.flags?.underpayment ?? tx.flags?.overpayment
  if (!money) return null
  const currency = tx.currency_code
  const text = (value: unknown) => (typeof value === "string" ? value : null)
  return (
    <>
      <Row label={t("payin.detail.booked")} testId="payin-widget-booked">{formatAmount(text(money.captured_amount), currency)}</Row>
      {text(money.missing_amount) ? (
        <Row label={t("payin.detail.missing")} testId="payin-widget-missing">{formatAmount(text(money.missing_amount), currency)}</Row>
      ) : null}
      {text(money.excess_amount) ? (
        <Row label={t("payin.detail.excess")} testId="payin-widget-excess">{formatAmount(text(money.excess_amount), currency)}</Row>
      ) : null}
    </>
  )
}

export function RequisiteFacts({ tx, testId }: { tx: TransactionDetail; testId: string }) {
  const { t } = useTranslation()
  const r = tx.requisite
  return (
    <div data-testid={testId} className="divide-y">
      <Row label={t("payin.detail.bank")}>{r?.bank ?? tx.bank ?? "—"}</Row>
      <Row label={t("payin.detail.owner")}>{r?.ownerName ?? "—"}</Row>
      <Row label={t("payin.detail.number")}>{r?.requisites ?? "—"}</Row>
      {r?.sbpNumber ? <Row label={t("payin.detail.sbp")}>{r.sbpNumber}</Row> : null}
    </div>
  )
}

export function PageLink({ tx, testId }: { tx: TransactionDetail; testId: string }) {
  const { t } = useTranslation()
  const href = safeHttpUrl(tx.payment_page_url)
  if (!href) return null
  return (
    <Row label={t("payin.detail.paymentPage")}>
      <a href={href} target="_blank" rel="noreferrer" className="text-ui-fg-interactive-hover" data-testid={testId}>
        {t("payin.common.open")}
      </a>
    </Row>
  )
}

export function DisputeFacts({ tx, testId }: { tx: TransactionDetail; testId: string }) {
  const { t } = useTranslation()
  const d = tx.dispute
  if (!d) return null
  const link = (url: string | null) =>
    safeHttpUrl(url) ? (
      <a href={safeHttpUrl(url)!} target="_blank" rel="noreferrer" className="text-ui-fg-interactive-hover">
        {t("payin.common.open")}
      </a>
    ) : (
      "—"
    )
  return (
    <div data-testid={testId} className="divide-y">
      <Row label={t("payin.detail.merchantCheck")}>{link(d.merchant_check_url)}</Row>
      <Row label={t("payin.detail.traderCheck")}>{link(d.trader_check_url)}</Row>
      <Row label={t("payin.detail.merchantAmount")}>{formatAmount(d.merchant_fiat_amount, tx.fiat_currency)}</Row>
      <Row label={t("payin.detail.traderAmount")}>{formatAmount(d.trader_fiat_amount, tx.fiat_currency)}</Row>
    </div>
  )
}

export function FlagFacts({ tx, testId }: { tx: TransactionDetail; testId: string }) {
  const { t } = useTranslation()
  const entries = Object.entries(tx.flags ?? {})
  return (
    <div className="px-6 py-3">
      <Flags flags={tx.flags} testId={testId} />
      {entries.map(([name, details]) => (
        <Text key={name} size="xsmall" className="text-ui-fg-subtle mt-1 break-all">
          {name}: {Object.entries(details ?? {}).map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : String(v)}`).join(", ")}
        </Text>
      ))}
      {!entries.length && tx.last_error ? (
        <Text size="xsmall" className="text-ui-fg-error">{t("payin.detail.lastError")}: {tx.last_error}</Text>
      ) : null}
    </div>
  )
}
