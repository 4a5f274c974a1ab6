// What Test connection found: the service's banks and currencies, or why it failed (with the
// address to whitelist when the service refused this server's).
import { Alert, Copy, Text } from "@medusajs/ui"
import { useTranslation } from "react-i18next"
import type { TestResult } from "../../lib/settings-api"

export function TestResultBox({ result }: { result: TestResult }) {
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
