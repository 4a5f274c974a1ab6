"use client"
import { useEffect, useMemo, useRef, type ReactNode } from "react"
import { formatDuration } from "../countdown"
import { copyValue, formatAmount, formatRequisite } from "../format"
import { paymentLinks, qrPayload, safePaymentPageUrl } from "../links"
import { getMessages, requisiteLabels, stateText, type Messages, type PayinLocale } from "../messages"
import { FINAL_SHOPPER_STATES, type PayinOrderView, type PayinStatusView } from "../types"
import { CopyButton, type CopyTarget } from "./copy-button"
import { focusLost } from "./pay-again"
import { QrCode } from "./qr-code"
import { PAYIN_CSS } from "./styles"
import { useCountdown, useCountdownAnnouncement } from "./use-countdown"

export type PayinInstructionsProps = {
  payin: PayinStatusView
  order?: PayinOrderView | null
  locale?: PayinLocale
  messages?: Partial<Messages>
  clockOffsetMs?: number
  /** Called once when the countdown reaches zero while the pay-in is not final (refresh then). */
  onExpire?: () => void
  actions?: ReactNode
  outcomeActions?: ReactNode
  notice?: ReactNode
  className?: string
  /** Skip the built-in stylesheet (class names stay; `PAYIN_CSS` is exported for your own CSS). */
  unstyled?: boolean
  nonce?: string
  /**
   * When this changes to another truthy value, the status line takes the focus if nothing has it
   * (the control the shopper was on went away: "Get new payment details" once the new ones came).
   */
  focusStatusKey?: string | number | null
}

type Tone = "info" | "success" | "danger" | "warning"

const cls = (...names: (string | false | null | undefined)[]) => names.filter(Boolean).join(" ")

function Field(props: { label: string; name: string; value: string; valueClass?: string; copy?: { value: string; target: CopyTarget; label: string }; messages: Messages }) {
  return (
    <div className="payin-field">
      <dt className="payin-label">{props.label}</dt>
      <dd className="payin-value-row">
        <span className={cls("payin-value", props.valueClass)} data-payin={props.name}>
          {props.value}
        </span>
        {props.copy && <CopyButton {...props.copy} what={props.label} messages={props.messages} />}
      </dd>
    </div>
  )
}

function Outcome({ payin, locale, messages: m }: { payin: PayinStatusView; locale: string; messages: Messages }) {
  const [title, text] =
    payin.state === "paid"
      ? [m.paidTitle, m.paidText]
      : payin.state === "canceled"
        ? [m.canceledTitle, m.canceledText]
        : payin.state === "failed"
          ? [m.failedTitle, m.failedText]
          : [m.expiredTitle, m.expiredText]
  const paid = payin.paid_amount ?? payin.amount
  return (
    <div className="payin-outcome" data-payin="outcome" data-outcome={payin.state}>
      <p className="payin-outcome-title">{title}</p>
      <p>{text}</p>
      {payin.state === "paid" && paid && (
        <p data-payin="amount">{payin.paid_amount ? m.paidAmount(formatAmount(paid, payin.currency, locale)) : formatAmount(paid, payin.currency, locale)}</p>
      )}
    </div>
  )
}

/** Presentational: pass fresh `payin` data ({@link PayinLiveInstructions} polls). Test ids and `data-payin` hooks: README. */
export function PayinInstructions(props: PayinInstructionsProps) {
  const { payin, order, locale = "en", clockOffsetMs = 0, onExpire, actions, outcomeActions, notice, className, unstyled, nonce, focusStatusKey } = props
  const m = useMemo(() => getMessages(locale, props.messages), [locale, props.messages])
  const final = payin.final || FINAL_SHOPPER_STATES.includes(payin.state)
  const awaiting = !final && payin.state === "awaiting_payment"
  const expiresAt = awaiting && payin.expires_at && Number.isFinite(Date.parse(payin.expires_at)) ? payin.expires_at : null
  const left = useCountdown(expiresAt, clockOffsetMs, onExpire)
  const windowOver = expiresAt !== null && left.expired
  // the timer itself is not live (it changes every second); this says the time at coarse steps
  const announcement = useCountdownAnnouncement(left.totalSeconds, expiresAt !== null && !windowOver, m.timeLeftWords)

  const tone: Tone =
    payin.state === "paid" ? "success" : final ? "danger" : windowOver || payin.state === "in_review" ? "warning" : "info"
  const busy = payin.state === "pending" || windowOver
  const requisite = awaiting ? payin.requisite : null
  const links = requisite ? paymentLinks(payin) : {}
  const qrText = requisite ? qrPayload(payin) : null
  const payHref = links.sbpQrUrl ?? links.payUrl ?? links.appUrl
  const pageUrl = !final && payin.state !== "in_review" ? safePaymentPageUrl(payin.payment_page_url) : null
  const bank = requisite?.bank || payin.bank
  const statusRef = useRef<HTMLParagraphElement>(null)
  useEffect(() => {
    if (focusStatusKey && focusLost()) statusRef.current?.focus()
  }, [focusStatusKey])

  return (
    <>
      {!unstyled && <style nonce={nonce} dangerouslySetInnerHTML={{ __html: PAYIN_CSS }} />}
      <section
        className={cls("payin-root", className)}
        data-payin="instructions"
        data-testid="payin-instructions"
        data-state={payin.state}
        data-order-status={order?.status}
        data-payment-status={order?.payment_status}
        aria-label={m.title}
        aria-busy={payin.state === "pending" || undefined}
        lang={locale}
      >
        {order?.display_id != null && <p className="payin-caption">{m.orderNumber(order.display_id)}</p>}
        <p className={cls("payin-status", busy && "payin-busy")} data-payin="status" data-testid="payin-instructions-status" data-state={windowOver ? "window_ended" : payin.state} data-tone={tone} role="status" aria-live="polite" tabIndex={-1} ref={statusRef} suppressHydrationWarning>
          {windowOver ? m.windowEnded : stateText(payin.state, m)}
        </p>
        {notice && <p className="payin-notice">{notice}</p>}

        {expiresAt && (
          <div
            className="payin-countdown"
            data-payin="countdown"
            data-seconds={left.totalSeconds}
            data-ended={windowOver || undefined}
            role="timer"
            aria-live="off"
            aria-label={windowOver ? m.windowEnded : m.timeLeftWords(left.totalSeconds)}
            suppressHydrationWarning
          >
            <span className="payin-label" aria-hidden="true">
              {m.timeLeft}
            </span>
            <span className="payin-time" aria-hidden="true" suppressHydrationWarning>
              {formatDuration(left.totalSeconds)}
            </span>
          </div>
        )}
        {expiresAt && (
          <p className="payin-sr" data-payin="countdown-announcement" aria-live="polite" aria-atomic="true">
            {announcement}
          </p>
        )}

        {final ? (
          <>
            <Outcome payin={payin} locale={locale} messages={m} />
            {outcomeActions && <div className="payin-actions">{outcomeActions}</div>}
          </>
        ) : (
          <>
            <p className="payin-text">{payin.state === "pending" ? m.pendingText : payin.state === "in_review" ? m.inReviewText : m.instruction}</p>
            <dl className="payin-fields">
              {payin.amount && (
                <Field
                  label={m.amount}
                  name="amount"
                  value={formatAmount(payin.amount, payin.currency, locale)}
                  valueClass="payin-value-amount"
                  copy={requisite ? { value: copyValue(payin.amount, "amount"), target: "amount", label: m.copyAmount } : undefined}
                  messages={m}
                />
              )}
              {requisite && bank && <Field label={m.bank} name="bank" value={m.bankName(bank)} messages={m} />}
              {requisite && <RequisiteFields payin={payin} messages={m} />}
            </dl>
            {payin.paid_amount && payin.paid_amount !== payin.amount && (
              <p className="payin-notice">{m.paidAmount(formatAmount(payin.paid_amount, payin.currency, locale))}</p>
            )}
            {payHref && (
              <div className="payin-links">
                {qrText && (
                  <figure className="payin-qr" data-payin="qr">
                    <QrCode text={qrText} label={m.qrAlt(payin.amount ? formatAmount(payin.amount, payin.currency, locale) : null, !!links.sbpQrUrl)} />
                    <figcaption className="payin-hint">{links.sbpQrUrl ? m.sbpQrHint : m.qrHint}</figcaption>
                  </figure>
                )}
                <a className="payin-button payin-button-primary" data-payin="pay-link" href={payHref} rel="noopener noreferrer">
                  {links.sbpQrUrl ? m.payBySbpQr : links.payUrl ? m.openPayLink : m.openInBankApp}
                </a>
              </div>
            )}
            {pageUrl && (
              <a className="payin-button payin-button-secondary" data-payin="page-link" data-testid="payin-payment-page-link" href={pageUrl} rel="noopener noreferrer">
                {m.openPaymentPage}
              </a>
            )}
            {awaiting && actions && <div className="payin-actions">{actions}</div>}
          </>
        )}
      </section>
    </>
  )
}

function RequisiteFields({ payin, messages: m }: { payin: PayinStatusView; messages: Messages }) {
  const requisite = payin.requisite
  if (!requisite) return null
  const { label, copyLabel } = requisiteLabels(requisite.number, payin.method, m)
  const raw = copyValue(requisite.number, payin.method)
  const sbp = requisite.sbp_number ? copyValue(requisite.sbp_number, "sbp") : null
  const isLink = /^[a-z][a-z0-9+.-]*:/i.test(requisite.number.trim())
  return (
    <>
      <Field
        label={label}
        name="requisite"
        value={formatRequisite(requisite.number, payin.method)}
        valueClass={isLink ? "payin-value-link" : undefined}
        copy={{ value: raw, target: "requisite", label: copyLabel }}
        messages={m}
      />
      {sbp && requisite.sbp_number && sbp !== raw && (
        <Field
          label={m.sbpPhone}
          name="sbp"
          value={formatRequisite(requisite.sbp_number, "phone_number")}
          copy={{ value: sbp, target: "sbp", label: m.copySbpPhone }}
          messages={m}
        />
      )}
      {requisite.owner_name && <Field label={m.recipient} name="owner" value={requisite.owner_name} messages={m} />}
    </>
  )
}
