// One page of the ledger: a row per pay-in, linking to its detail and to its order. The whole row
// opens the detail for a mouse; its id is the link to it for the keyboard and screen readers.
import { Table } from "@medusajs/ui"
import { useTranslation } from "react-i18next"
import { Link, useNavigate } from "react-router-dom"
import type { TransactionRow } from "../../lib/transactions-api"
import { Flags, PayinStatus, formatAmount, formatDate } from "../common"

export function TransactionsTable({ transactions }: { transactions: TransactionRow[] }) {
  const { t, i18n } = useTranslation()
  const navigate = useNavigate()
  return (
    <Table>
      <Table.Header>
        <Table.Row>
          <Table.HeaderCell>{t("payin.transactions.created")}</Table.HeaderCell>
          <Table.HeaderCell>{t("payin.transactions.status")}</Table.HeaderCell>
          <Table.HeaderCell>{t("payin.transactions.amount")}</Table.HeaderCell>
          <Table.HeaderCell>{t("payin.transactions.received")}</Table.HeaderCell>
          <Table.HeaderCell>{t("payin.transactions.method")}</Table.HeaderCell>
          <Table.HeaderCell>{t("payin.transactions.flags")}</Table.HeaderCell>
          <Table.HeaderCell>{t("payin.common.order")}</Table.HeaderCell>
          <Table.HeaderCell>{t("payin.transactions.id")}</Table.HeaderCell>
        </Table.Row>
      </Table.Header>
      <Table.Body>
        {transactions.map((tx) => (
          <Table.Row
            key={tx.id}
            className="cursor-pointer"
            onClick={() => navigate(`/payin/${tx.id}`)}
            data-testid="payin-tx-row"
            data-id={tx.id}
            data-status={tx.status}
          >
            <Table.Cell>{formatDate(tx.created_at, i18n.language)}</Table.Cell>
            <Table.Cell>
              <PayinStatus status={tx.status} />
            </Table.Cell>
            <Table.Cell>{formatAmount(tx.amount, tx.currency_code)}</Table.Cell>
            <Table.Cell>{formatAmount(tx.fiat_amount, tx.fiat_currency)}</Table.Cell>
            <Table.Cell>{[tx.method, tx.bank].filter(Boolean).join(" / ") || "—"}</Table.Cell>
            <Table.Cell>
              <Flags flags={tx.flags} />
            </Table.Cell>
            <Table.Cell onClick={(e) => e.stopPropagation()}>
              {tx.order_id ? (
                <Link to={`/orders/${tx.order_id}`} className="text-ui-fg-interactive-hover" data-testid="payin-tx-order-link">
                  {tx.order_id.slice(-8)}
                </Link>
              ) : (
                "—"
              )}
            </Table.Cell>
            <Table.Cell className="font-mono txt-compact-xsmall" onClick={(e) => e.stopPropagation()}>
              <Link to={`/payin/${tx.id}`} className="text-ui-fg-interactive-hover" data-testid="payin-tx-detail-link">
                {tx.id.slice(-10)}
              </Link>
            </Table.Cell>
          </Table.Row>
        ))}
      </Table.Body>
    </Table>
  )
}
