// Pay-ins: the ledger, filtered by status and flags, searchable, each row linking to its order.
import { defineRouteConfig } from "@medusajs/admin-sdk"
import { Cash } from "@medusajs/icons"
import { Button, Container, Heading, Input, Select, Table, Text } from "@medusajs/ui"
import { useMemo, useState } from "react"
import { useTranslation } from "react-i18next"
import { Link, useNavigate, useSearchParams } from "react-router-dom"
import { ErrorText, Flags, PayinStatus, flagLabel, formatAmount, formatDate } from "../../components/common"
import { KNOWN_FLAGS, STATUSES, useTransactions } from "../../lib/api"

const PAGE = 20

const PayinsPage = () => {
  const { t, i18n } = useTranslation()
  const navigate = useNavigate()
  const [params, setParams] = useSearchParams()
  const [search, setSearch] = useState(params.get("q") ?? "")
  const status = params.get("status") ?? ""
  const flag = params.get("flag") ?? ""
  const offset = Number(params.get("offset") ?? 0) || 0

  const query = useMemo(() => {
    const q = new URLSearchParams()
    if (status) q.set("status", status)
    if (flag === "__any") q.set("has_flags", "true")
    else if (flag) q.set("flag", flag)
    if (params.get("q")) q.set("q", params.get("q")!)
    q.set("limit", String(PAGE))
    q.set("offset", String(offset))
    return q
  }, [status, flag, offset, params])
  const { data, isLoading, error } = useTransactions(query)

  const update = (changes: Record<string, string>) => {
    const next = new URLSearchParams(params)
    for (const [k, v] of Object.entries(changes)) {
      if (v) next.set(k, v)
      else next.delete(k)
    }
    if (!("offset" in changes)) next.delete("offset")
    setParams(next)
  }

  const count = data?.count ?? 0
  return (
    <Container className="divide-y p-0" data-testid="payin-transactions-page">
      <div className="flex items-center justify-between px-6 py-4">
        <div>
          <Heading level="h1">{t("payin.transactions.title")}</Heading>
          <Text size="small" className="text-ui-fg-subtle">{t("payin.transactions.subtitle")}</Text>
        </div>
      </div>
      <div className="flex flex-wrap items-center gap-2 px-6 py-4">
        <form
          onSubmit={(e) => {
            e.preventDefault()
            update({ q: search.trim() })
          }}
        >
          <Input
            size="small"
            type="search"
            placeholder={t("payin.transactions.search")}
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            data-testid="payin-filter-search"
          />
        </form>
        <div className="w-48" data-testid="payin-filter-status">
          <Select value={status || "__all"} onValueChange={(v) => update({ status: v === "__all" ? "" : v })} size="small">
            <Select.Trigger>
              <Select.Value />
            </Select.Trigger>
            <Select.Content>
              <Select.Item value="__all">{t("payin.transactions.allStatuses")}</Select.Item>
              {STATUSES.map((s) => (
                <Select.Item key={s} value={s}>
                  {t(`payin.status.${s}`)}
                </Select.Item>
              ))}
            </Select.Content>
          </Select>
        </div>
        <div className="w-48" data-testid="payin-filter-flag">
          <Select value={flag || "__all"} onValueChange={(v) => update({ flag: v === "__all" ? "" : v })} size="small">
            <Select.Trigger>
              <Select.Value />
            </Select.Trigger>
            <Select.Content>
              <Select.Item value="__all">{t("payin.transactions.allFlags")}</Select.Item>
              <Select.Item value="__any">{t("payin.transactions.withFlags")}</Select.Item>
              {KNOWN_FLAGS.map((f) => (
                <Select.Item key={f} value={f}>
                  {flagLabel(t, f)}
                </Select.Item>
              ))}
            </Select.Content>
          </Select>
        </div>
      </div>
      {error ? (
        <ErrorText error={error} />
      ) : (
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
            {data?.transactions.map((tx) => (
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
                    <Link to={`/orders/${tx.order_id}`} className="text-ui-fg-interactive" data-testid="payin-tx-order-link">
                      {tx.order_id.slice(-8)}
                    </Link>
                  ) : (
                    "—"
                  )}
                </Table.Cell>
                <Table.Cell className="font-mono txt-compact-xsmall">{tx.id.slice(-10)}</Table.Cell>
              </Table.Row>
            ))}
          </Table.Body>
        </Table>
      )}
      {isLoading || !data?.transactions.length ? (
        <Text size="small" className="text-ui-fg-subtle px-6 py-4" data-testid="payin-transactions-empty">
          {isLoading ? t("payin.common.loading") : t("payin.transactions.empty")}
        </Text>
      ) : null}
      <div className="flex items-center justify-between px-6 py-4">
        <Text size="small" className="text-ui-fg-subtle">
          {count ? t("payin.transactions.count", { from: offset + 1, to: Math.min(offset + PAGE, count), count }) : ""}
        </Text>
        <div className="flex gap-2">
          <Button size="small" variant="secondary" disabled={offset === 0} onClick={() => update({ offset: String(Math.max(0, offset - PAGE)) })}>
            {t("payin.transactions.previous")}
          </Button>
          <Button size="small" variant="secondary" disabled={offset + PAGE >= count} onClick={() => update({ offset: String(offset + PAGE) })}>
            {t("payin.transactions.next")}
          </Button>
        </div>
      </div>
    </Container>
  )
}

export const config = defineRouteConfig({
  label: "payin.menu",
  translationNs: "translation",
  icon: Cash,
})

export default PayinsPage
