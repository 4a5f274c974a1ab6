// Settings → Pay-in: connection, Payment Page defaults, checkout rules, orders; test connection;
// the webhook URL for the merchant panel and webhook health. Each value shows where it comes from.
import { defineRouteConfig } from "@medusajs/admin-sdk"
import {
  Alert,
  Badge,
  Button,
  Checkbox,
  Container,
  Copy,
  Heading,
  Input,
  Label,
  Select,
  Switch,
  Text,
  Textarea,
  toast,
} from "@medusajs/ui"
import { ReactNode, useEffect, useMemo, useState } from "react"
import { useTranslation } from "react-i18next"
import { ErrorText, SourceBadge, formatDate } from "../../../components/common"
import {
  ApiError,
  AllSettings,
  METHODS,
  ProviderSettings,
  Source,
  TestResult,
  useSavePlugin,
  useSaveProvider,
  useSettings,
  useTestConnection,
  useWebhookHealth,
} from "../../../lib/api"

type Draft = {
  apiKey: string
  baseUrl: string
  successUrl: string
  failureUrl: string
  supportLink: string
  locale: string
  allowedRedirectOrigins: string
  allowedMethods: string[]
  allowedBanks: string
  amountMode: "fixed" | "range"
  tolerancePercent: string
  paymentWindowSeconds: string
  manualRefunds: boolean
  cancelUnpaidOrdersOnExpiry: boolean
  notifyEnabled: boolean
  notifyChannel: string
  instructionsTemplate: string
  paidTemplate: string
  expiredTemplate: string
  orderStatusUrl: string
  reconcileIntervalSeconds: string
  effectRetryLimit: string
  lockTtlSeconds: string
  webhookRetentionDays: string
  webhookCounterRetentionDays: string
  pruneBatchSize: string
}

function draftOf(p: ProviderSettings, plugin: AllSettings["plugin"]): Draft {
  const v = p.values
  return {
    apiKey: "",
    baseUrl: v.baseUrl ?? "",
    successUrl: v.paymentPage.successUrl ?? "",
    failureUrl: v.paymentPage.failureUrl ?? "",
    supportLink: v.paymentPage.supportLink ?? "",
    locale: v.paymentPage.locale ?? "",
    allowedRedirectOrigins: v.allowedRedirectOrigins.join("\n"),
    allowedMethods: [...v.allowedMethods],
    allowedBanks: v.allowedBanks.join("\n"),
    amountMode: v.amountPolicy.mode,
    tolerancePercent: String(v.amountPolicy.tolerancePercent),
    paymentWindowSeconds: String(v.paymentWindowSeconds),
    manualRefunds: v.manualRefunds,
    cancelUnpaidOrdersOnExpiry: v.cancelUnpaidOrdersOnExpiry,
    notifyEnabled: v.notifications.enabled,
    notifyChannel: v.notifications.channel,
    instructionsTemplate: v.notifications.instructionsTemplate,
    paidTemplate: v.notifications.paidTemplate,
    expiredTemplate: v.notifications.expiredTemplate,
    orderStatusUrl: v.notifications.orderStatusUrl ?? "",
    reconcileIntervalSeconds: String(plugin.values.reconcileIntervalSeconds),
    effectRetryLimit: String(plugin.values.effectRetryLimit),
    lockTtlSeconds: String(plugin.values.lockTtlSeconds),
    webhookRetentionDays: String(plugin.values.webhookRetentionDays),
    webhookCounterRetentionDays: String(plugin.values.webhookCounterRetentionDays),
    pruneBatchSize: String(plugin.values.pruneBatchSize),
  }
}

const lines = (text: string) => text.split(/\r?\n/).map((s) => s.trim()).filter(Boolean)
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)
const num = (s: string) => (s.trim() === "" ? null : Number(s))

/** The changed fields only: what the admin API should store. */
function patchOf(d: Draft, initial: Draft): { provider: Record<string, unknown>; plugin: Record<string, unknown> } {
  const provider: Record<string, unknown> = {}
  if (d.apiKey.trim()) provider.apiKey = d.apiKey.trim()
  if (d.baseUrl !== initial.baseUrl) provider.baseUrl = d.baseUrl.trim() || null
  const page: Record<string, unknown> = {}
  for (const key of ["successUrl", "failureUrl", "supportLink", "locale"] as const) {
    if (d[key] !== initial[key]) page[key] = d[key].trim() || null
  }
  if (Object.keys(page).length) provider.paymentPage = page
  if (!same(lines(d.allowedRedirectOrigins), lines(initial.allowedRedirectOrigins))) provider.allowedRedirectOrigins = lines(d.allowedRedirectOrigins)
  if (!same([...d.allowedMethods].sort(), [...initial.allowedMethods].sort())) provider.allowedMethods = d.allowedMethods
  if (!same(lines(d.allowedBanks), lines(initial.allowedBanks))) provider.allowedBanks = lines(d.allowedBanks)
  if (d.amountMode !== initial.amountMode || d.tolerancePercent !== initial.tolerancePercent) {
    provider.amountPolicy = { mode: d.amountMode, tolerancePercent: num(d.tolerancePercent) ?? 0 }
  }
  if (d.paymentWindowSeconds !== initial.paymentWindowSeconds) provider.paymentWindowSeconds = num(d.paymentWindowSeconds)
  if (d.manualRefunds !== initial.manualRefunds) provider.manualRefunds = d.manualRefunds
  if (d.cancelUnpaidOrdersOnExpiry !== initial.cancelUnpaidOrdersOnExpiry) provider.cancelUnpaidOrdersOnExpiry = d.cancelUnpaidOrdersOnExpiry
  const notifications: Record<string, unknown> = {}
  if (d.notifyEnabled !== initial.notifyEnabled) notifications.enabled = d.notifyEnabled
  if (d.notifyChannel !== initial.notifyChannel) notifications.channel = d.notifyChannel.trim() || null
  for (const key of ["instructionsTemplate", "paidTemplate", "expiredTemplate", "orderStatusUrl"] as const) {
    if (d[key] !== initial[key]) notifications[key] = d[key].trim() || null
  }
  if (Object.keys(notifications).length) provider.notifications = notifications
  const plugin: Record<string, unknown> = {}
  if (d.reconcileIntervalSeconds !== initial.reconcileIntervalSeconds) plugin.reconcileIntervalSeconds = num(d.reconcileIntervalSeconds)
  if (d.effectRetryLimit !== initial.effectRetryLimit) plugin.effectRetryLimit = num(d.effectRetryLimit)
  if (d.lockTtlSeconds !== initial.lockTtlSeconds) plugin.lockTtlSeconds = num(d.lockTtlSeconds)
  for (const key of ["webhookRetentionDays", "webhookCounterRetentionDays", "pruneBatchSize"] as const) {
    if (d[key] !== initial[key]) plugin[key] = num(d[key])
  }
  return { provider, plugin }
}

function Field({
  field,
  label,
  hint,
  source,
  error,
  onReset,
  children,
}: {
  field: string
  label: string
  hint?: string
  source?: Source | null
  error?: string
  onReset?: () => void
  children: ReactNode
}) {
  const { t } = useTranslation()
  return (
    <div className="flex flex-col gap-y-1">
      <div className="flex items-center gap-x-2">
        <Label size="small" weight="plus" htmlFor={`payin-${field}`}>
          {label}
        </Label>
        <SourceBadge source={source} field={field} />
        {source === "admin" && onReset ? (
          <button type="button" className="text-ui-fg-interactive txt-compact-xsmall" onClick={onReset} data-testid={`payin-reset-${field}`}>
            {t("payin.common.reset")}
          </button>
        ) : null}
      </div>
      {children}
      {hint ? <Text size="xsmall" className="text-ui-fg-subtle">{hint}</Text> : null}
      {error ? (
        <Text size="xsmall" className="text-ui-fg-error" data-testid={`payin-field-error-${field}`}>
          {error}
        </Text>
      ) : null}
    </div>
  )
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="flex flex-col gap-y-4 px-6 py-4">
      <Heading level="h2">{title}</Heading>
      {children}
    </div>
  )
}

function TestResultBox({ result }: { result: TestResult }) {
  const { t } = useTranslation()
  if (result.ok) {
    return (
      <Alert variant="success" data-testid="payin-test-result" data-ok="true">
        {t("payin.settings.testOk", { ms: result.duration_ms, banks: result.banks.length, currencies: result.currencies.length })}
        <Text size="xsmall" className="text-ui-fg-subtle mt-1">
          {result.banks.slice(0, 8).map((b) => b.name).join(", ")}
          {" · "}
          {result.currencies.map((c) => `${c.fiatCurrency}${c.rate ? ` ${c.rate}` : ""}`).join(", ")}
        </Text>
      </Alert>
    )
  }
  return (
    <Alert variant="error" data-testid="payin-test-result" data-ok="false" data-kind={result.error.kind}>
      {t("payin.settings.testFailed", { message: result.error.message })}
      {result.error.kind === "ip_not_whitelisted" ? (
        <div className="mt-2">
          <Text size="small">{t("payin.settings.whitelistAddress")}</Text>
          {result.outgoing_address ? (
            <div className="flex items-center gap-2">
              <code className="txt-compact-small-plus" data-testid="payin-outgoing-address">
                {result.outgoing_address}
              </code>
              <Copy content={result.outgoing_address} />
            </div>
          ) : (
            <Text size="small" data-testid="payin-outgoing-address">
              {t("payin.settings.serverAddresses")} {result.server_addresses.join(", ") || "—"}
            </Text>
          )}
        </div>
      ) : null}
    </Alert>
  )
}

function ProviderForm({ settings, all }: { settings: ProviderSettings; all: AllSettings }) {
  const { t, i18n } = useTranslation()
  const initial = useMemo(() => draftOf(settings, all.plugin), [settings, all.plugin])
  const [draft, setDraft] = useState<Draft>(initial)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [test, setTest] = useState<TestResult | null>(null)
  useEffect(() => setDraft(initial), [initial])
  const saveProvider = useSaveProvider(settings.id)
  const savePlugin = useSavePlugin()
  const testConnection = useTestConnection(settings.id)
  const health = useWebhookHealth()
  const h = health.data?.providers.find((p) => p.id === settings.id)
  const reconciliation = health.data?.reconciliation
  const retention = health.data?.retention

  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }))
  const src = (field: string) => settings.sources[field] ?? null

  const fail = (error: unknown) => {
    if (error instanceof ApiError && error.fields.length) {
      setErrors(Object.fromEntries(error.fields.map((f) => [f.path.replace(/\.\d+$/, ""), f.message])))
    }
    toast.error(t("payin.settings.saveFailed", { message: error instanceof Error ? error.message : String(error) }))
  }

  const save = async () => {
    const { provider, plugin } = patchOf(draft, initial)
    if (!Object.keys(provider).length && !Object.keys(plugin).length) {
      toast.info(t("payin.settings.nothingChanged"))
      return
    }
    setErrors({})
    try {
      if (Object.keys(provider).length) await saveProvider.mutateAsync({ ...provider, revision: settings.revision })
      if (Object.keys(plugin).length) await savePlugin.mutateAsync({ ...plugin, revision: all.plugin.revision })
      setDraft((d) => ({ ...d, apiKey: "" }))
      toast.success(t("payin.settings.saved"))
    } catch (error) {
      fail(error)
    }
  }

  const reset = (patch: Record<string, unknown>, plugin = false) => async () => {
    try {
      await (plugin ? savePlugin : saveProvider).mutateAsync({ ...patch, revision: plugin ? all.plugin.revision : settings.revision })
      toast.success(t("payin.settings.saved"))
    } catch (error) {
      fail(error)
    }
  }

  const runTest = () => {
    setTest(null)
    testConnection.mutate(
      { ...(draft.apiKey.trim() ? { apiKey: draft.apiKey.trim() } : {}), ...(draft.baseUrl.trim() ? { baseUrl: draft.baseUrl.trim() } : {}) },
      { onSuccess: setTest, onError: fail }
    )
  }

  const pending = saveProvider.isPending || savePlugin.isPending
  return (
    <>
      <Section title={t("payin.settings.connection")}>
        {!all.encryption.configured ? <Alert variant="warning">{t("payin.settings.encryptionMissing")}</Alert> : null}
        {settings.api_key.error ? (
          <Alert variant="error">{t("payin.settings.apiKeyError", { message: settings.api_key.error })}</Alert>
        ) : null}
        <Field
          field="apiKey"
          label={t("payin.settings.apiKey")}
          hint={t("payin.settings.apiKeyHint")}
          source={src("apiKey")}
          error={errors.apiKey}
          onReset={reset({ apiKey: null })}
        >
          <Text size="small" className="text-ui-fg-subtle" data-testid="payin-apikey-masked">
            {t("payin.settings.apiKeyCurrent", { masked: settings.api_key.masked ?? t("payin.settings.apiKeyNotSet") })}
          </Text>
          <Input
            id="payin-apiKey"
            type="password"
            autoComplete="new-password"
            placeholder={settings.api_key.masked ?? ""}
            value={draft.apiKey}
            onChange={(e) => set("apiKey", e.target.value)}
            data-testid="payin-field-apiKey"
          />
        </Field>
        <Field field="baseUrl" label={t("payin.settings.baseUrl")} source={src("baseUrl")} error={errors.baseUrl} onReset={reset({ baseUrl: null })}>
          <Input id="payin-baseUrl" value={draft.baseUrl} onChange={(e) => set("baseUrl", e.target.value)} data-testid="payin-field-baseUrl" />
        </Field>
        <div className="flex flex-col gap-2">
          <div>
            <Button size="small" variant="secondary" onClick={runTest} isLoading={testConnection.isPending} data-testid="payin-test-connection">
              {testConnection.isPending ? t("payin.settings.testing") : t("payin.settings.testConnection")}
            </Button>
          </div>
          {test ? <TestResultBox result={test} /> : null}
        </div>
      </Section>

      <Section title={t("payin.settings.paymentPage")}>
        {(["successUrl", "failureUrl", "supportLink"] as const).map((key) => (
          <Field
            key={key}
            field={`paymentPage.${key}`}
            label={t(`payin.settings.${key}`)}
            source={src(`paymentPage.${key}`)}
            error={errors[`paymentPage.${key}`]}
            onReset={reset({ paymentPage: { [key]: null } })}
          >
            <Input
              id={`payin-paymentPage.${key}`}
              value={draft[key]}
              placeholder="https://"
              onChange={(e) => set(key, e.target.value)}
              data-testid={`payin-field-paymentPage.${key}`}
            />
          </Field>
        ))}
        <Field
          field="paymentPage.locale"
          label={t("payin.settings.locale")}
          source={src("paymentPage.locale")}
          error={errors["paymentPage.locale"]}
          onReset={reset({ paymentPage: { locale: null } })}
        >
          <div data-testid="payin-field-paymentPage.locale">
            <Select value={draft.locale || "__none"} onValueChange={(v) => set("locale", v === "__none" ? "" : v)} size="small">
              <Select.Trigger>
                <Select.Value />
              </Select.Trigger>
              <Select.Content>
                <Select.Item value="__none">{t("payin.settings.localeDefault")}</Select.Item>
                <Select.Item value="EN">English (EN)</Select.Item>
                <Select.Item value="RU">Русский (RU)</Select.Item>
              </Select.Content>
            </Select>
          </div>
        </Field>
      </Section>

      <Section title={t("payin.settings.checkout")}>
        <Field
          field="allowedRedirectOrigins"
          label={t("payin.settings.allowedRedirectOrigins")}
          hint={t("payin.settings.allowedRedirectOriginsHint")}
          source={src("allowedRedirectOrigins")}
          error={errors.allowedRedirectOrigins}
          onReset={reset({ allowedRedirectOrigins: null })}
        >
          <Textarea
            id="payin-allowedRedirectOrigins"
            rows={3}
            value={draft.allowedRedirectOrigins}
            onChange={(e) => set("allowedRedirectOrigins", e.target.value)}
            data-testid="payin-field-allowedRedirectOrigins"
          />
        </Field>
        <Field
          field="allowedMethods"
          label={t("payin.settings.allowedMethods")}
          hint={t("payin.settings.allowedMethodsHint")}
          source={src("allowedMethods")}
          error={errors.allowedMethods}
          onReset={reset({ allowedMethods: null })}
        >
          <div className="grid grid-cols-2 gap-2 sm:grid-cols-4" data-testid="payin-field-allowedMethods">
            {METHODS.map((m) => (
              <label key={m} className="flex items-center gap-2 txt-small">
                <Checkbox
                  checked={draft.allowedMethods.includes(m)}
                  onCheckedChange={(checked) =>
                    set("allowedMethods", checked ? [...draft.allowedMethods, m] : draft.allowedMethods.filter((x) => x !== m))
                  }
                  data-method={m}
                />
                {m}
              </label>
            ))}
          </div>
        </Field>
        <Field
          field="allowedBanks"
          label={t("payin.settings.allowedBanks")}
          hint={t("payin.settings.allowedBanksHint")}
          source={src("allowedBanks")}
          error={errors.allowedBanks}
          onReset={reset({ allowedBanks: null })}
        >
          <Textarea id="payin-allowedBanks" rows={3} value={draft.allowedBanks} onChange={(e) => set("allowedBanks", e.target.value)} data-testid="payin-field-allowedBanks" />
        </Field>
        <Field field="amountPolicy" label={t("payin.settings.amountPolicy")} source={src("amountPolicy")} error={errors["amountPolicy.mode"]} onReset={reset({ amountPolicy: null })}>
          <div data-testid="payin-field-amountPolicy.mode">
            <Select value={draft.amountMode} onValueChange={(v) => set("amountMode", v as Draft["amountMode"])} size="small">
              <Select.Trigger>
                <Select.Value />
              </Select.Trigger>
              <Select.Content>
                <Select.Item value="fixed">{t("payin.settings.amountFixed")}</Select.Item>
                <Select.Item value="range">{t("payin.settings.amountRange")}</Select.Item>
              </Select.Content>
            </Select>
          </div>
        </Field>
        {draft.amountMode === "range" ? (
          <Field field="amountPolicy.tolerancePercent" label={t("payin.settings.tolerancePercent")} error={errors["amountPolicy.tolerancePercent"]}>
            <Input
              type="number"
              min={0}
              max={10}
              step="0.1"
              value={draft.tolerancePercent}
              onChange={(e) => set("tolerancePercent", e.target.value)}
              data-testid="payin-field-amountPolicy.tolerancePercent"
            />
          </Field>
        ) : null}
        <Field
          field="paymentWindowSeconds"
          label={t("payin.settings.paymentWindowSeconds")}
          source={src("paymentWindowSeconds")}
          error={errors.paymentWindowSeconds}
          onReset={reset({ paymentWindowSeconds: null })}
        >
          <Input type="number" value={draft.paymentWindowSeconds} onChange={(e) => set("paymentWindowSeconds", e.target.value)} data-testid="payin-field-paymentWindowSeconds" />
        </Field>
      </Section>

      <Section title={t("payin.settings.orders")}>
        {(["cancelUnpaidOrdersOnExpiry", "manualRefunds"] as const).map((key) => (
          <Field key={key} field={key} label={t(`payin.settings.${key}`)} source={src(key)} error={errors[key]} onReset={reset({ [key]: null })}>
            <Switch checked={draft[key]} onCheckedChange={(v) => set(key, v)} data-testid={`payin-field-${key}`} />
          </Field>
        ))}
      </Section>

      <Section title={t("payin.settings.notifications")}>
        <Text size="small" className="text-ui-fg-subtle">{t("payin.settings.notificationsHint")}</Text>
        <Field
          field="notifications.enabled"
          label={t("payin.settings.notifyEnabled")}
          source={src("notifications.enabled")}
          error={errors["notifications.enabled"]}
          onReset={reset({ notifications: { enabled: null } })}
        >
          <Switch checked={draft.notifyEnabled} onCheckedChange={(v) => set("notifyEnabled", v)} data-testid="payin-field-notifications.enabled" />
        </Field>
        <Field
          field="notifications.channel"
          label={t("payin.settings.notifyChannel")}
          hint={t("payin.settings.notifyChannelHint")}
          source={src("notifications.channel")}
          error={errors["notifications.channel"]}
          onReset={reset({ notifications: { channel: null } })}
        >
          <Input
            id="payin-notifications.channel"
            value={draft.notifyChannel}
            onChange={(e) => set("notifyChannel", e.target.value)}
            data-testid="payin-field-notifications.channel"
          />
        </Field>
        {(["instructionsTemplate", "paidTemplate", "expiredTemplate"] as const).map((key) => (
          <Field
            key={key}
            field={`notifications.${key}`}
            label={t(`payin.settings.${key}`)}
            source={src(`notifications.${key}`)}
            error={errors[`notifications.${key}`]}
            onReset={reset({ notifications: { [key]: null } })}
          >
            <Input
              id={`payin-notifications.${key}`}
              value={draft[key]}
              onChange={(e) => set(key, e.target.value)}
              data-testid={`payin-field-notifications.${key}`}
            />
          </Field>
        ))}
        <Field
          field="notifications.orderStatusUrl"
          label={t("payin.settings.orderStatusUrl")}
          hint={t("payin.settings.orderStatusUrlHint")}
          source={src("notifications.orderStatusUrl")}
          error={errors["notifications.orderStatusUrl"]}
          onReset={reset({ notifications: { orderStatusUrl: null } })}
        >
          <Input
            id="payin-notifications.orderStatusUrl"
            value={draft.orderStatusUrl}
            placeholder="https://shop.example.com/{country_code}/order/{order_id}"
            onChange={(e) => set("orderStatusUrl", e.target.value)}
            data-testid="payin-field-notifications.orderStatusUrl"
          />
        </Field>
      </Section>

      <Section title={t("payin.settings.plugin")}>
        <Field
          field="reconcileIntervalSeconds"
          label={t("payin.settings.reconcileIntervalSeconds")}
          source={all.plugin.sources.reconcileIntervalSeconds}
          error={errors.reconcileIntervalSeconds}
          onReset={reset({ reconcileIntervalSeconds: null }, true)}
        >
          <Input type="number" value={draft.reconcileIntervalSeconds} onChange={(e) => set("reconcileIntervalSeconds", e.target.value)} data-testid="payin-field-reconcileIntervalSeconds" />
        </Field>
        <Field
          field="effectRetryLimit"
          label={t("payin.settings.effectRetryLimit")}
          source={all.plugin.sources.effectRetryLimit}
          error={errors.effectRetryLimit}
          onReset={reset({ effectRetryLimit: null }, true)}
        >
          <Input type="number" value={draft.effectRetryLimit} onChange={(e) => set("effectRetryLimit", e.target.value)} data-testid="payin-field-effectRetryLimit" />
        </Field>
        <Field
          field="lockTtlSeconds"
          label={t("payin.settings.lockTtlSeconds")}
          source={all.plugin.sources.lockTtlSeconds}
          error={errors.lockTtlSeconds}
          onReset={reset({ lockTtlSeconds: null }, true)}
        >
          <Input type="number" value={draft.lockTtlSeconds} onChange={(e) => set("lockTtlSeconds", e.target.value)} data-testid="payin-field-lockTtlSeconds" />
        </Field>
      </Section>

      <Section title={t("payin.settings.retention")}>
        <Text size="small" className="text-ui-fg-subtle">{t("payin.settings.retentionHint")}</Text>
        {(["webhookRetentionDays", "webhookCounterRetentionDays", "pruneBatchSize"] as const).map((key) => (
          <Field
            key={key}
            field={key}
            label={t(`payin.settings.${key}`)}
            source={all.plugin.sources[key]}
            error={errors[key]}
            onReset={reset({ [key]: null }, true)}
          >
            <Input type="number" min={0} value={draft[key]} onChange={(e) => set(key, e.target.value)} data-testid={`payin-field-${key}`} />
          </Field>
        ))}
      </Section>

      <div className="flex justify-end px-6 py-4">
        <Button onClick={save} isLoading={pending} data-testid="payin-save">
          {pending ? t("payin.common.saving") : t("payin.common.save")}
        </Button>
      </div>

      <Section title={t("payin.settings.webhook")}>
        <Text size="small">{t("payin.settings.webhookUrl")}</Text>
        <div className="flex items-center gap-2">
          <code className="bg-ui-bg-subtle rounded px-2 py-1 txt-compact-small break-all" data-testid="payin-webhook-url">
            {settings.webhook_url}
          </code>
          <span data-testid="payin-webhook-copy">
            <Copy content={settings.webhook_url} />
          </span>
        </div>
      </Section>

      <Section title={t("payin.settings.health")}>
        <div className="grid grid-cols-2 gap-3 sm:grid-cols-4" data-testid="payin-webhook-health">
          {(["accepted", "duplicates", "rejected", "failed"] as const).map((k) => (
            <div key={k} className="flex flex-col">
              <Text size="xsmall" className="text-ui-fg-subtle">{t(`payin.settings.${k}`)}</Text>
              <Text size="large" weight="plus" data-testid={`payin-health-${k}`}>
                {h ? h[k] : "—"}
              </Text>
            </div>
          ))}
        </div>
        <Text size="small" data-testid="payin-health-last-delivery">
          {t("payin.settings.lastDelivery")}: {h?.last_delivery_at ? formatDate(h.last_delivery_at, i18n.language) : t("payin.settings.never")}
        </Text>
        <Text size="small" data-testid="payin-health-last-failure">
          {t("payin.settings.lastFailure")}:{" "}
          {h?.last_failure_at ? `${formatDate(h.last_failure_at, i18n.language)} (${h.last_failure_reason ?? ""})` : t("payin.settings.never")}
        </Text>
        <Text size="small" data-testid="payin-health-reconciliation">
          {t("payin.settings.lastReconciliation")}:{" "}
          {reconciliation?.last_run_at ? formatDate(reconciliation.last_run_at, i18n.language) : t("payin.settings.never")}
        </Text>
        <Text size="small" data-testid="payin-health-retention">
          {t("payin.settings.lastRetention")}:{" "}
          {retention?.last_run_at
            ? `${formatDate(retention.last_run_at, i18n.language)} (${t("payin.settings.retentionPruned", {
                entries: retention.last_report?.inboxPruned ?? 0,
                counters: retention.last_report?.countersPruned ?? 0,
              })})`
            : t("payin.settings.never")}
        </Text>
        {reconciliation?.overdue && (
          <Alert variant="warning" data-testid="payin-health-reconciliation-overdue">
            {t("payin.settings.reconciliationOverdue")}
          </Alert>
        )}
      </Section>
    </>
  )
}

const PayinSettingsPage = () => {
  const { t } = useTranslation()
  const { data, isLoading, error } = useSettings()
  const [selected, setSelected] = useState<string | null>(null)
  const provider = data?.providers.find((p) => p.id === selected) ?? data?.providers[0]
  return (
    <Container className="divide-y p-0" data-testid="payin-settings-page">
      <div className="flex items-center justify-between px-6 py-4">
        <div>
          <Heading level="h1">{t("payin.settings.title")}</Heading>
          <Text size="small" className="text-ui-fg-subtle">{t("payin.settings.subtitle")}</Text>
        </div>
        {provider ? (
          <Badge size="small" color={provider.configured ? "green" : "orange"}>
            {provider.provider_id}
          </Badge>
        ) : null}
      </div>
      {isLoading ? <Text className="px-6 py-4">{t("payin.common.loading")}</Text> : null}
      {error ? <ErrorText error={error} /> : null}
      {data && data.providers.length > 1 ? (
        <div className="flex items-center gap-2 px-6 py-4">
          <Label size="small">{t("payin.settings.instance")}</Label>
          <div className="w-64" data-testid="payin-instance-select">
            <Select value={provider?.id} onValueChange={setSelected} size="small">
              <Select.Trigger>
                <Select.Value />
              </Select.Trigger>
              <Select.Content>
                {data.providers.map((p) => (
                  <Select.Item key={p.id} value={p.id}>
                    {p.provider_id}
                  </Select.Item>
                ))}
              </Select.Content>
            </Select>
          </div>
        </div>
      ) : null}
      {data && provider ? <ProviderForm key={provider.id} settings={provider} all={data} /> : null}
    </Container>
  )
}

export const config = defineRouteConfig({
  label: "payin.settingsLabel",
  translationNs: "translation",
})

export default PayinSettingsPage
