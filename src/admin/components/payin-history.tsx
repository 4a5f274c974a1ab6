// A pay-in's status history and its webhook deliveries, on its detail page.
import { Container, Heading, Table, Text } from "@medusajs/ui"
import { useTranslation } from "react-i18next"
import type { HistoryEntry, WebhookEntry } from "../lib/transactions-api"
import { PayinStatus, formatDate } from "./common"

export function HistoryTable({ history }: { history: HistoryEntry[] }) {
  const { t, i18n } = useTranslation()
  const date = (v: string | null) => formatDate(v, i18n.language)
  return (
    <Container className="divide-y p-0" data-testid="payin-tx-history">
      <div className="px-6 py-4">
        <Heading level="h2">{t("payin.detail.history")}</Heading>
      </div>
      <Table>
        <Table.Body>
          {history.map((h) => (
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
  )
}

export function WebhookTable({ webhooks }: { webhooks: WebhookEntry[] }) {
  const { t, i18n } = useTranslation()
  const date = (v: string | null) => formatDate(v, i18n.language)
  return (
    <Container className="divide-y p-0" data-testid="payin-tx-webhooks">
      <div className="px-6 py-4">
        <Heading level="h2">{t("payin.detail.webhooks")}</Heading>
      </div>
      {webhooks.length ? (
        <Table>
          <Table.Body>
            {webhooks.map((w) => (
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
  )
}
