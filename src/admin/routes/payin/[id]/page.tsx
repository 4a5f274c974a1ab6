// One pay-in: what the service said, its status history, its webhook deliveries, its order's
// shopper notifications, Reconcile now.
import { Container, Heading, Text } from "@medusajs/ui"
import { useTranslation } from "react-i18next"
import { Link, useParams } from "react-router-dom"
import { ErrorText, PayinStatus, Row, formatAmount, formatDate } from "../../../components/common"
import { NotificationFacts } from "../../../components/notification-facts"
import { HistoryTable, WebhookTable } from "../../../components/payin-history"
import { AmountFacts, DisputeFacts, FlagFacts, PageLink, RequisiteFacts } from "../../../components/payin-facts"
import { ReconcileButton } from "../../../components/reconcile-button"
import { useTransaction } from "../../../lib/transactions-api"

const PayinDetailPage = () => {
  const { id } = useParams()
  const { t, i18n } = useTranslation()
  const { data, isLoading, error } = useTransaction(id!)
  if (isLoading) {
    return (
      <Container>
        <Text>{t("payin.common.loading")}</Text>
      </Container>
    )
  }
  if (error || !data) {
    return (
      <Container className="p-0">
        <ErrorText error={error ?? new Error("not found")} />
      </Container>
    )
  }
  const tx = data.transaction
  const date = (v: string | null) => formatDate(v, i18n.language)
  return (
    <div className="flex flex-col gap-3" data-testid="payin-tx-detail" data-id={tx.id}>
      <Container className="divide-y p-0">
        <div className="flex items-start justify-between px-6 py-4">
          <div className="flex flex-col gap-1">
            <Link to="/payin" className="text-ui-fg-interactive-hover txt-small">
              ← {t("payin.detail.back")}
            </Link>
            <div className="flex items-center gap-2">
              <Heading level="h1">{t("payin.detail.title")}</Heading>
              <PayinStatus status={tx.status} testId="payin-tx-status" />
            </div>
            <Text size="xsmall" className="text-ui-fg-muted font-mono">{tx.id}</Text>
          </div>
          <ReconcileButton id={tx.id} testId="payin-reconcile" resultTestId="payin-reconcile-result" />
        </div>
        <Row label={t("payin.detail.serviceId")}>{tx.service_id ?? "—"}</Row>
        <Row label={t("payin.detail.sessionId")}>{tx.session_id ?? "—"}</Row>
        <Row label={t("payin.common.order")}>
          {tx.order_id ? (
            <Link to={`/orders/${tx.order_id}`} className="text-ui-fg-interactive-hover" data-testid="payin-tx-order-link">
              {tx.order_id}
            </Link>
          ) : (
            "—"
          )}
        </Row>
        <Row label={t("payin.common.cart")}>{tx.cart_id ?? "—"}</Row>
        <Row label={t("payin.transactions.created")}>{date(tx.created_at)}</Row>
        <Row label={t("payin.transactions.amount")}>{formatAmount(tx.amount, tx.currency_code)}</Row>
        <AmountFacts tx={tx} />
        <PageLink tx={tx} testId="payin-tx-page-link" />
      </Container>

      <div className="grid grid-cols-1 gap-3 lg:grid-cols-2">
        <Container className="divide-y p-0">
          <div className="px-6 py-4">
            <Heading level="h2">{t("payin.detail.requisite")}</Heading>
          </div>
          <RequisiteFacts tx={tx} testId="payin-tx-requisite" />
        </Container>
        <Container className="divide-y p-0">
          <div className="px-6 py-4">
            <Heading level="h2">{t("payin.transactions.flags")}</Heading>
          </div>
          <FlagFacts tx={tx} testId="payin-tx-flags" />
          {tx.dispute ? (
            <>
              <div className="px-6 py-4">
                <Heading level="h2">{t("payin.detail.dispute")}</Heading>
              </div>
              <DisputeFacts tx={tx} testId="payin-tx-dispute" />
            </>
          ) : null}
          {tx.refunds?.length ? (
            <>
              <div className="px-6 py-4">
                <Heading level="h2">{t("payin.detail.refunds")}</Heading>
              </div>
              {tx.refunds.map((r, i) => (
                <Row key={i} label={date(r.at)}>
                  {formatAmount(r.amount, tx.currency_code)} ({r.mode})
                </Row>
              ))}
            </>
          ) : null}
        </Container>
      </div>

      <HistoryTable history={data.history} />
      <WebhookTable webhooks={data.webhooks} />
      <NotificationFacts notifications={data.notifications ?? []} />
    </div>
  )
}

export default PayinDetailPage
