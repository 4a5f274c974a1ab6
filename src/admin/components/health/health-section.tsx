// The Pay-ins page's Health section: the overall state and, grouped, every signal that is not OK
// (its state as a badge with text, title, a sentence from its figure, since when, what to do and
// where), in the admin's language; when all are OK, one line and the signals in a collapsed list.
// GET /admin/payin/health, refetched every 30 s.
import { Badge, Container, Heading, StatusBadge, Text } from "@medusajs/ui"
import { useTranslation } from "react-i18next"
import { Link } from "react-router-dom"
import type { Health, HealthSignal, HealthState } from "../../lib/health-api"
import { useHealth } from "../../lib/health-api"
import { type Translate, alertsKey, groupProblems, hasManyInstances, instanceOf, linkLabelKey, signalTestId, signalText } from "../../lib/health-text"
import { ErrorText, formatDate } from "../common"

const STATE_COLORS: Record<HealthState, "green" | "orange" | "red"> = { ok: "green", warning: "orange", failing: "red" }

/** A state as a coloured dot and its name (never by colour alone). */
export function HealthBadge({ state, testId }: { state: HealthState; testId?: string }) {
  const { t } = useTranslation()
  return (
    <StatusBadge color={STATE_COLORS[state] ?? "grey"} data-testid={testId} data-state={state}>
      {t(`payin.health.state.${state}`, { defaultValue: state })}
    </StatusBadge>
  )
}

function SignalTitle({ signal, many, t, title }: { signal: HealthSignal; many: boolean; t: Translate; title: string }) {
  const instance = instanceOf(signal.provider_id)
  return (
    <span className="flex flex-wrap items-center gap-x-2 gap-y-1">
      <HealthBadge state={signal.state} />
      <Text as="span" size="small" weight="plus" leading="compact">
        {title}
      </Text>
      {many && instance ? (
        <Badge size="2xsmall" color="grey">
          {t("payin.health.instance", { instance })}
        </Badge>
      ) : null}
    </span>
  )
}

/** A signal that is not OK: what, since when, what to do, where. */
function SignalRow({ signal, many }: { signal: HealthSignal; many: boolean }) {
  const { t, i18n } = useTranslation()
  const text = signalText(t, signal, i18n.language, formatDate)
  const testId = signalTestId(signal, many)
  return (
    <li className="flex flex-col gap-y-1 py-3" data-testid={testId} data-state={signal.state} data-signal={signal.id} data-provider={signal.provider_id ?? undefined}>
      <SignalTitle signal={signal} many={many} t={t} title={text.title} />
      <Text size="small" className="text-ui-fg-base" data-testid={`${testId}-sentence`}>
        {text.sentence}
      </Text>
      {text.action ? (
        <Text size="small" className="text-ui-fg-base" data-testid={`${testId}-action`}>
          <span className="font-medium">{t("payin.health.whatToDo")}</span> {text.action}
        </Text>
      ) : null}
      <div className="text-ui-fg-subtle txt-small flex flex-wrap items-center gap-x-4 gap-y-1">
        <span data-testid={`${testId}-since`}>{t("payin.health.since", { time: formatDate(signal.since, i18n.language) })}</span>
        {signal.alerted_at ? <span>{t("payin.health.alerted", { time: formatDate(signal.alerted_at, i18n.language) })}</span> : null}
        {signal.link ? (
          <Link to={signal.link} className="text-ui-fg-interactive-hover underline" data-testid={`${testId}-link`}>
            {t(linkLabelKey(signal.link))}
          </Link>
        ) : null}
      </div>
    </li>
  )
}

/** A signal in the collapsed list: its state and title. */
function SignalLine({ signal, many }: { signal: HealthSignal; many: boolean }) {
  const { t, i18n } = useTranslation()
  const text = signalText(t, signal, i18n.language, formatDate)
  return (
    <li className="py-1" data-testid={signalTestId(signal, many)} data-state={signal.state} data-signal={signal.id} data-provider={signal.provider_id ?? undefined}>
      <SignalTitle signal={signal} many={many} t={t} title={text.title} />
    </li>
  )
}

function Collapsed({ label, signals, many, testId }: { label: string; signals: HealthSignal[]; many: boolean; testId: string }) {
  return (
    <details className="px-6 py-3" data-testid={testId}>
      <summary className="txt-small text-ui-fg-subtle cursor-pointer">{label}</summary>
      <ul className="mt-2">
        {signals.map((s) => (
          <SignalLine key={`${s.id}:${s.provider_id ?? ""}`} signal={s} many={many} />
        ))}
      </ul>
    </details>
  )
}

/** The section's content for an answer of the health route. */
export function HealthBody({ health }: { health: Health }) {
  const { t, i18n } = useTranslation()
  const many = hasManyInstances(health.signals)
  const problems = groupProblems(health.signals)
  const checked = formatDate(health.checked_at, i18n.language)
  const ok = health.signals.filter((s) => s.state === "ok")
  const alerts = health.alerts
  return (
    <>
      {problems.length === 0 ? (
        <Text size="small" className="px-6 py-4" data-testid="payin-health-all-ok">
          {t("payin.health.allOk", { time: checked })}
        </Text>
      ) : (
        <>
          <Text size="small" className="text-ui-fg-subtle px-6 py-3" data-testid="payin-health-checked">
            {t("payin.health.checked", { time: checked })}
          </Text>
          {problems.map(({ group, signals }) => (
            <div key={group} className="px-6 py-3" data-testid={`payin-health-group-${group}`}>
              <Heading level="h3" className="txt-compact-small-plus text-ui-fg-subtle">
                {t(`payin.health.group.${group}`, { defaultValue: t("payin.health.group.other") })}
              </Heading>
              <ul className="divide-y">
                {signals.map((s) => (
                  <SignalRow key={`${s.id}:${s.provider_id ?? ""}`} signal={s} many={many} />
                ))}
              </ul>
            </div>
          ))}
        </>
      )}
      {ok.length > 0 ? (
        <Collapsed
          label={problems.length === 0 ? t("payin.health.allSignals", { count: ok.length }) : t("payin.health.okSignals", { count: ok.length })}
          signals={ok}
          many={many}
          testId="payin-health-ok-list"
        />
      ) : null}
      {alerts ? (
        <div className="text-ui-fg-subtle txt-small flex flex-wrap items-center gap-x-4 gap-y-1 px-6 py-3" data-testid="payin-health-alerts">
          <span>
            {t(alertsKey(alerts), { recipients: alerts.email_recipients, minutes: alerts.min_interval_minutes })}
          </span>
          <Link to="/settings/payin#payin-section-alerts" className="text-ui-fg-interactive-hover underline">
            {t("payin.health.alertSettings")}
          </Link>
          {alerts.delivery_error ? (
            <span className="text-ui-fg-error basis-full" data-testid="payin-health-delivery-error">
              {t("payin.health.deliveryProblem", { error: alerts.delivery_error })}
            </span>
          ) : null}
        </div>
      ) : null}
    </>
  )
}

/** The Health section at the top of the Pay-ins page (test id `payin-health`, `data-state` the overall state). */
export function HealthSection() {
  const { t } = useTranslation()
  const { data, error, isLoading } = useHealth()
  return (
    <Container className="divide-y p-0" data-testid="payin-health" data-state={data?.state} role="region" aria-labelledby="payin-health-title">
      <div className="flex flex-wrap items-center justify-between gap-2 px-6 py-4">
        <div>
          <Heading level="h2" id="payin-health-title">
            {t("payin.health.title")}
          </Heading>
          {data ? (
            <Text size="small" className="text-ui-fg-subtle">
              {t("payin.health.subtitle", { seconds: data.check_interval_seconds })}
            </Text>
          ) : null}
        </div>
        {data ? (
          <span className="flex items-center gap-2">
            <span className="sr-only">{t("payin.health.overall", { state: t(`payin.health.state.${data.state}`, { defaultValue: data.state }) })}</span>
            <span aria-hidden="true">
              <HealthBadge state={data.state} testId="payin-health-state" />
            </span>
          </span>
        ) : null}
      </div>
      {error ? (
        <ErrorText error={error} />
      ) : data ? (
        <HealthBody health={data} />
      ) : (
        <Text size="small" className="text-ui-fg-subtle px-6 py-4">
          {isLoading ? t("payin.common.loading") : null}
        </Text>
      )}
    </Container>
  )
}
