// The shopper notifications of a pay-in's order: sent, failed with the reason, or waiting for a retry.
import { Badge, Container, Heading, Table, Text } from "@medusajs/ui"
import { useTranslation } from "react-i18next"
import type { NotificationEntry } from "../lib/transactions-api"
import { formatDate } from "./common"

const COLORS = { sent: "green", failed: "red", due: "orange", skipped: "grey" } as const

export function NotificationFacts({ notifications }: { notifications: NotificationEntry[] }) {
  const { t, i18n } = useTranslation()
  const date = (v: string | null) => formatDate(v, i18n.language)
  return (
    <Container className="divide-y p-0" data-testid="payin-tx-notifications">
      <div className="px-6 py-4">
        <Heading level="h2">{t("payin.detail.notifications")}</Heading>
      </div>
      {notifications.length ? (
        <Table>
          <Table.Body>
            {notifications.map((n) => (
              <Table.Row key={n.id} data-kind={n.kind} data-status={n.status} data-attempts={n.attempts} data-testid="payin-tx-notification">
                <Table.Cell>{t(`payin.notification.kind.${n.kind}`, { defaultValue: n.kind })}</Table.Cell>
                <Table.Cell>
                  <Badge size="2xsmall" color={COLORS[n.status] ?? "grey"}>
                    {t(`payin.notification.status.${n.status}`, { defaultValue: n.status })}
                  </Badge>
                </Table.Cell>
                <Table.Cell>
                  {n.attempts} {t("payin.detail.attempts")}
                </Table.Cell>
                <Table.Cell>
                  {n.status === "sent"
                    ? date(n.sent_at)
                    : n.next_attempt_at
                      ? `${t("payin.notification.nextAttempt")} ${date(n.next_attempt_at)}`
                      : ""}
                </Table.Cell>
                <Table.Cell className="text-ui-fg-error">{n.status === "sent" ? "" : (n.last_error ?? "")}</Table.Cell>
              </Table.Row>
            ))}
          </Table.Body>
        </Table>
      ) : (
        <Text size="small" className="text-ui-fg-subtle px-6 py-4">{t("payin.detail.noNotifications")}</Text>
      )}
    </Container>
  )
}
