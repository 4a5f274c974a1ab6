// One pay-in: what the service said, its status history, its webhook deliveries, its order's
// shopper notifications, Reconcile now.
import { Container, Heading, Table, Text } from "@medusajs/ui"
import { useTranslation } from "react-i18next"
import { Link, useParams } from "react-router-dom"
import { ErrorText, PayinStatus, Row, formatAmount, formatDate } from "../../../components/common"
import { NotificationFacts } from "../../../components/notification-facts"
import { AmountFacts, DisputeFacts, FlagFacts, PageLink, RequisiteFacts } from "../../../components/payin-facts"
import { ReconcileButton } from "../../../components/reconcile-button"
import { useTransaction } from "../../../lib/api"

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
            <Link to="/payin" className="text-ui-fg-interactive txt-small">
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
            <Link to={`/orders/${tx.order_id}`} className="text-ui-fg-interactive" data-testid="payin-tx-order-link">
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

      <Container className="divide-y p-0" data-testid="payin-tx-history">
        <div className="px-6 py-4">
          <Heading level="h2">{t("payin.detail.history")}</Heading>
        </div>
        <Table>
          <Table.Body>
            {data.history.map((h) => (
              <Table.Row key={h.id} data-to={h.to_status} data-source={h.source}>
                <Table.Cell>{date(h.created_at)}</Table.Cell>
                <Table.Cell>
                  {h.from_status ? `${t(`payin.status.${h.from_status}`, { defaultValue: h.from_status })} → ` : ""}
                  {t(`payin.status.${h.to_status}`, { defaultValue: h.to_status })}
                </Table.Cell>
                <Table.Cell>{t(`payin.detail.source.${h.source}`, { defaultValue: h.source })}</Table.Cell>
                <Table.Cell>{h.note ?? ""}</Table.Cell>
              </Table.Row>
            ))}
          </Table.Body>
        </Table>
      </Container>

      <Container className="divide-y p-0" data-testid="payin-tx-webhooks">
        <div className="px-6 py-4">
          <Heading level="h2">{t("payin.detail.webhooks")}</Heading>
        </div>
        {data.webhooks.length ? (
          <Table>
            <Table.Body>
              {data.webhooks.map((w) => (
                <Table.Row key={w.id} data-state={w.state}>
                  <Table.Cell>{date(w.created_at)}</Table.Cell>
                  <Table.Cell>
                    <PayinStatus status={w.status} />
                  </Table.Cell>
                  <Table.Cell>{w.state}</Table.Cell>
                  <Table.Cell>
                    {w.attempts} {t("payin.detail.attempts")}, {w.duplicates} {t("payin.detail.duplicates")}
                  </Table.Cell>
                  <Table.Cell className="text-ui-fg-error">{w.last_error ?? ""}</Table.Cell>
                </Table.Row>
              ))}
            </Table.Body>
          </Table>
        ) : (
          <Text size="small" className="text-ui-fg-subtle px-6 py-4">{t("payin.detail.noWebhooks")}</Text>
        )}
      </Container>
      <NotificationFacts notifications={data.notifications ?? []} />
    </div>
  )
}

export default PayinDetailPage
