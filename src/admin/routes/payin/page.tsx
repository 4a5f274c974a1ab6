// Pay-ins: the ledger, filtered by status and flags, searchable, each row linking to its order;
// paged by cursor (keyset), the count shown as the API gives it (exact, "about N", "N+"); the
// pay-ins of a period exported as CSV through a plain download link.
import { defineRouteConfig } from "@medusajs/admin-sdk"
import { Cash } from "@medusajs/icons"
import { Button, Container, Heading, Input, Label, Select, Table, Text } from "@medusajs/ui"
import { useMemo, useState } from "react"
import { useTranslation } from "react-i18next"
import { Link, useNavigate, useSearchParams } from "react-router-dom"
import { ErrorText, Flags, PayinStatus, flagLabel, formatAmount, formatDate } from "../../components/common"
import { KNOWN_FLAGS, STATUSES, type TransactionsPage, exportUrl, useTransactions } from "../../lib/api"

const PAGE = 20

/** yyyy-mm-dd of a local date. */
const day = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`
/** Local midnight of a yyyy-mm-dd, plus `days`, as an ISO instant (the merchant's day, not UTC's). */
const midnight = (value: string, days = 0) => {
  const [y, m, d] = value.split("-").map(Number)
  return new Date(y, m - 1, d + days).toISOString()
}

function CountText({ data, first, t, language }: { data: TransactionsPage; first: number; t: (k: string, o?: Record<string, unknown>) => string; language: string }) {
  if (!data.transactions.length) return null
  const range = { from: first + 1, to: first + data.transactions.length }
  const total = data.count.toLocaleString(language)
  const text = data.count_is_lower_bound
    ? t("payin.transactions.countAtLeast", { ...range, total })
    : data.count_is_estimate
      ? t("payin.transactions.countAbout", { ...range, total })
      : t("payin.transactions.count", { ...range, count: data.count })
  return (
    <Text
      size="small"
      className="text-ui-fg-subtle"
      data-testid="payin-transactions-count"
      data-estimate={data.count_is_estimate ? (data.count_is_lower_bound ? "at-least" : "about") : "exact"}
    >
      {text}
    </Text>
  )
}

function ExportLink({ status, flag }: { status: string; flag: string }) {
  const { t } = useTranslation()
  const today = new Date()
  const [from, setFrom] = useState(day(new Date(today.getFullYear(), today.getMonth(), 1)))
  const [to, setTo] = useState(day(today))
  const [by, setBy] = useState<"created" | "closed">("created")
  const href = useMemo(() => {
    const q = new URLSearchParams()
    if (from) q.set("from", midnight(from))
    if (to) q.set("to", midnight(to, 1)) // the whole last day
    q.set("by", by)
    if (status) q.set("status", status)
    if (flag === "__any") q.set("has_flags", "true")
    else if (flag) q.set("flag", flag)
    return exportUrl(q)
  }, [from, to, by, status, flag])
  const invalid = Boolean(from && to && from > to)
  return (
    <div className="flex flex-wrap items-end gap-2 px-6 py-4" data-testid="payin-export">
      <div>
        <Label size="xsmall" htmlFor="payin-export-from">{t("payin.transactions.exportFrom")}</Label>
        <Input id="payin-export-from" size="small" type="date" value={from} onChange={(e) => setFrom(e.target.value)} data-testid="payin-export-from" />
      </div>
      <div>
        <Label size="xsmall" htmlFor="payin-export-to">{t("payin.transactions.exportTo")}</Label>
        <Input id="payin-export-to" size="small" type="date" value={to} onChange={(e) => setTo(e.target.value)} data-testid="payin-export-to" />
      </div>
      <div className="w-48" data-testid="payin-export-by">
        <Select value={by} onValueChange={(v) => setBy(v as "created" | "closed")} size="small">
          <Select.Trigger>
            <Select.Value />
          </Select.Trigger>
          <Select.Content>
            <Select.Item value="created">{t("payin.transactions.exportByCreated")}</Select.Item>
            <Select.Item value="closed">{t("payin.transactions.exportByClosed")}</Select.Item>
          </Select.Content>
        </Select>
      </div>
      {invalid ? (
        <Button size="small" variant="secondary" disabled>
          {t("payin.transactions.exportLink")}
        </Button>
      ) : (
        <Button size="small" variant="secondary" asChild>
          {/* a plain link: the browser streams the file to disk with the admin's session cookie */}
          <a href={href} download data-testid="payin-export-link">
            {t("payin.transactions.exportLink")}
          </a>
        </Button>
      )}
      <Text size="xsmall" className="text-ui-fg-subtle basis-full">
        {t("payin.transactions.exportHint")}
      </Text>
    </div>
  )
}

const PayinsPage = () => {
  const { t, i18n } = useTranslation()
  const navigate = useNavigate()
  const [params, setParams] = useSearchParams()
  const [search, setSearch] = useState(params.get("q") ?? "")
  const status = params.get("status") ?? ""
  const flag = params.get("flag") ?? ""
  const cursor = params.get("cursor") ?? ""
  const pageIndex = cursor ? Number(params.get("page") ?? 1) || 1 : 0
  // cursors of the pages before this one, for "Previous" ("" = the first page)
  const [trail, setTrail] = useState<string[]>([])

  const query = useMemo(() => {
    const q = new URLSearchParams()
    if (status) q.set("status", status)
    if (flag === "__any") q.set("has_flags", "true")
    else if (flag) q.set("flag", flag)
    if (params.get("q")) q.set("q", params.get("q")!)
    q.set("limit", String(PAGE))
    if (cursor) q.set("cursor", cursor)
    return q
  }, [status, flag, cursor, params])
  const { data, isLoading, error } = useTransactions(query)

  const update = (changes: Record<string, string>) => {
    const next = new URLSearchParams(params)
    for (const [k, v] of Object.entries(changes)) {
      if (v) next.set(k, v)
      else next.delete(k)
    }
    if (!("cursor" in changes)) {
      // a new filter starts at the first page
      next.delete("cursor")
      next.delete("page")
      setTrail([])
    }
    next.delete("offset")
    setParams(next)
  }
  const goNext = () => {
    if (!data?.next_cursor) return
    setTrail([...trail, cursor])
    update({ cursor: data.next_cursor, page: String(pageIndex + 1) })
  }
  const goPrevious = () => {
    const previous = trail.length ? trail[trail.length - 1] : ""
    setTrail(trail.slice(0, -1))
    // after a reload the trail is gone: back to the first page
    update(trail.length && previous ? { cursor: previous, page: String(pageIndex - 1) } : { cursor: "", page: "" })
  }

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
      <ExportLink status={status} flag={flag} />
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
        {data ? <CountText data={data} first={pageIndex * PAGE} t={t} language={i18n.language} /> : <span />}
        <div className="flex gap-2">
          <Button size="small" variant="secondary" disabled={pageIndex === 0} onClick={goPrevious} data-testid="payin-page-previous">
            {t("payin.transactions.previous")}
          </Button>
          <Button size="small" variant="secondary" disabled={!data?.next_cursor} onClick={goNext} data-testid="payin-page-next">
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
