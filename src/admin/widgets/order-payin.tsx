// Order details: the order's pay-in (status, amounts, requisite, Payment Page, dispute, flags).
import { defineWidgetConfig } from "@medusajs/admin-sdk"
import type { AdminOrder, DetailWidgetProps } from "@medusajs/framework/types"
import { Container, Heading } from "@medusajs/ui"
import { useTranslation } from "react-i18next"
import { Link } from "react-router-dom"
import { PayinStatus } from "../components/common"
import { AmountFacts, DisputeFacts, FlagFacts, PageLink, RequisiteFacts } from "../components/payin-facts"
import { ReconcileButton } from "../components/reconcile-button"
import { useOrderPayins } from "../lib/transactions-api"

const OrderPayinWidget = ({ data: order }: DetailWidgetProps<AdminOrder>) => {
  const { t } = useTranslation()
  const { data, isLoading } = useOrderPayins(order.id)
  const transactions = data?.transactions ?? []
  if (isLoading || !transactions.length) {
    return null
  }
  return (
    <>
      {transactions.map((tx) => (
        <Container key={tx.id} className="divide-y p-0" data-testid="payin-order-widget" data-id={tx.id}>
          <div className="flex items-center justify-between px-6 py-4">
            <Heading level="h2">{t("payin.widget.title")}</Heading>
            <PayinStatus status={tx.status} testId="payin-widget-status" />
          </div>
          <AmountFacts tx={tx} />
          <RequisiteFacts tx={tx} testId="payin-widget-requisite" />
          <PageLink tx={tx} testId="payin-widget-page-link" />
          <DisputeFacts tx={tx} testId="payin-widget-dispute" />
          <FlagFacts tx={tx} testId="payin-widget-flags" />
          <div className="flex items-center justify-between px-6 py-4">
            <Link to={`/payin/${tx.id}`} className="text-ui-fg-interactive-hover txt-small">
              {t("payin.widget.details")}
            </Link>
            <ReconcileButton id={tx.id} testId="payin-widget-reconcile" resultTestId="payin-widget-reconcile-result" />
          </div>
        </Container>
      ))}
    </>
  )
}

export const config = defineWidgetConfig({
  zone: "order.details.side.after",
  id: "medusa-plugin-payin.order-payin",
})

export default OrderPayinWidget
