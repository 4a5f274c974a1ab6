import { defineRouteConfig } from "@medusajs/admin-sdk"
import { Cash } from "@medusajs/icons"
import { Button, Container, Heading, Text } from "@medusajs/ui"
import { useMemo, useState } from "react"
import { useTranslation } from "react-i18next"
import { useSearchParams } from "react-router-dom"
import { ErrorText } from "../../components/common"
import { HealthSection } from "../../components/health/health-section"
import { CountText } from "../../components/transactions/count-text"
import { ExportLink } from "../../components/transactions/export-link"
import { ExtraFilters, LINKED_FILTERS } from "../../components/transactions/extra-filters"
import { SearchGoesOn, isShortPageThatGoesOn } from "../../components/transactions/search-goes-on"
import { TransactionFilters } from "../../components/transactions/filters"
import { TransactionsTable } from "../../components/transactions/table"
import { useTransactions } from "../../lib/transactions-api"

const PAGE = 20

const PayinsPage = () => {
  const { t, i18n } = useTranslation()
  const [params, setParams] = useSearchParams()
  const status = params.get("status") ?? ""
  const flag = params.get("flag") ?? ""
  const cursor = params.get("cursor") ?? ""
  const pageIndex = cursor ? Number(params.get("page") ?? 1) || 1 : 0
  // rows before this page (a broad search's pages may be short)
  const first = cursor ? Number(params.get("first") ?? 0) || 0 : 0
  // the pages before this one, for "Previous" (cursor "" = the first page)
  const [trail, setTrail] = useState<{ cursor: string; first: number }[]>([])

  const query = useMemo(() => {
    const q = new URLSearchParams()
    if (status) q.set("status", status)
    if (flag === "__any") q.set("has_flags", "true")
    else if (flag) q.set("flag", flag)
    if (params.get("q")) q.set("q", params.get("q")!)
    for (const key of LINKED_FILTERS) if (params.get(key)) q.set(key, params.get(key)!)
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
      next.delete("first")
      setTrail([])
    }
    next.delete("offset")
    setParams(next)
  }
  const goNext = () => {
    if (!data?.next_cursor) return
    setTrail([...trail, { cursor, first }])
    update({ cursor: data.next_cursor, page: String(pageIndex + 1), first: String(first + data.transactions.length) })
  }
  const goPrevious = () => {
    const previous = trail[trail.length - 1]
    setTrail(trail.slice(0, -1))
    // after a reload the trail is gone: back to the first page
    update(previous?.cursor ? { cursor: previous.cursor, page: String(pageIndex - 1), first: String(previous.first) } : { cursor: "", page: "", first: "" })
  }

  return (
    <div className="flex flex-col gap-y-3">
      <HealthSection />
      <Container className="divide-y p-0" data-testid="payin-transactions-page">
        <div className="flex items-center justify-between px-6 py-4">
          <div>
            <Heading level="h1">{t("payin.transactions.title")}</Heading>
            <Text size="small" className="text-ui-fg-subtle">{t("payin.transactions.subtitle")}</Text>
          </div>
        </div>
        <TransactionFilters query={params.get("q") ?? ""} status={status} flag={flag} update={update} />
        <ExtraFilters params={params} update={update} />
        <ExportLink status={status} flag={flag} />
        {error ? <ErrorText error={error} /> : <TransactionsTable transactions={data?.transactions ?? []} />}
        {isShortPageThatGoesOn(data, PAGE) ? (
          <SearchGoesOn t={t} language={i18n.language} />
        ) : isLoading || !data?.transactions.length ? (
          <Text size="small" className="text-ui-fg-subtle px-6 py-4" data-testid="payin-transactions-empty">
            {isLoading ? t("payin.common.loading") : t("payin.transactions.empty")}
          </Text>
        ) : null}
        <div className="flex items-center justify-between px-6 py-4">
          {data ? <CountText data={data} first={first} t={t} language={i18n.language} /> : <span />}
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
    </div>
  )
}

export const config = defineRouteConfig({
  label: "payin.menu",
  translationNs: "translation",
  icon: Cash,
})

export default PayinsPage
