// Small shared pieces of the plugin's admin pages. Links use Medusa's `text-ui-fg-interactive-hover`
// shade: its `text-ui-fg-interactive` blue is 3.7:1 on white, under WCAG AA's 4.5:1 (5.2:1).
import { Badge, StatusBadge, Text, Tooltip } from "@medusajs/ui"
import type { ReactNode } from "react"
import { useTranslation } from "react-i18next"
import { formatAmountWithCode } from "../../money/display"
import { PAYIN_FLAGS, type LedgerStatus } from "../../status"
import type { OptionSource } from "../lib/settings-api"

const STATUS_COLORS: Record<LedgerStatus, "green" | "red" | "blue" | "orange" | "grey" | "purple"> = {
  creating: "grey",
  failed: "red",
  active: "blue",
  closed: "green",
  canceled: "grey",
  dispute: "orange",
  checking: "orange",
  re_calculation: "purple",
}

export function PayinStatus({ status, testId }: { status: LedgerStatus | string; testId?: string }) {
  const { t } = useTranslation()
  return (
    <StatusBadge color={STATUS_COLORS[status as LedgerStatus] ?? "grey"} data-testid={testId} data-status={status}>
      {t(`payin.status.${status}`, { defaultValue: status })}
    </StatusBadge>
  )
}

export function flagLabel(t: (key: string, options?: Record<string, unknown>) => string, name: string): string {
  return (PAYIN_FLAGS as readonly string[]).includes(name) ? t(`payin.flags.${name}`) : t("payin.flags.other", { name })
}

export function Flags({ flags, testId }: { flags: Record<string, unknown> | null; testId?: string }) {
  const { t } = useTranslation()
  const names = Object.keys(flags ?? {})
  if (!names.length) {
    return <Text size="small" className="text-ui-fg-muted" data-testid={testId}>{t("payin.common.none")}</Text>
  }
  return (
    <div className="flex flex-wrap gap-1" data-testid={testId}>
      {names.map((name) => (
        <Badge key={name} size="2xsmall" color="orange" data-flag={name}>
          {flagLabel(t, name)}
        </Badge>
      ))}
    </div>
  )
}

export function SourceBadge({ source, field }: { source: OptionSource | null | undefined; field: string }) {
  const { t } = useTranslation()
  if (!source) return null
  const color = source === "admin" ? "blue" : source === "default" ? "grey" : "purple"
  return (
    <Tooltip content={t("payin.source.hint")}>
      <Badge size="2xsmall" color={color} data-testid={`payin-source-${field}`} data-source={source}>
        {t(`payin.source.${source}`)}
      </Badge>
    </Tooltip>
  )
}

export function formatDate(value: string | null | undefined, language: string): string {
  if (!value) return "—"
  const date = new Date(value)
  return Number.isNaN(date.getTime())
    ? value
    : date.toLocaleString(language === "ru" ? "ru-RU" : "en-GB", { dateStyle: "medium", timeStyle: "medium" })
}

/** An amount with its currency code ("1790.00 RUB"), "—" when there is none. */
export function formatAmount(amount: string | null | undefined, currency: string | null | undefined): string {
  if (amount === null || amount === undefined || amount === "") return "—"
  return formatAmountWithCode(amount, currency ?? "")
}

/** A label/value row of a definition list. */
export function Row({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="grid grid-cols-2 items-start gap-3 px-6 py-3" data-testid={testId}>
      <Text size="small" weight="plus" leading="compact" className="text-ui-fg-subtle">
        {label}
      </Text>
      <div className="text-ui-fg-base txt-small break-all">{children}</div>
    </div>
  )
}

export function ErrorText({ error }: { error: unknown }) {
  const { t } = useTranslation()
  return (
    <Text size="small" className="text-ui-fg-error px-6 py-4">
      {t("payin.common.error", { message: error instanceof Error ? error.message : String(error) })}
    </Text>
  )
}
