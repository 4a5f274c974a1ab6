import { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { networkInterfaces } from "os"
import { providerOptionsSchema } from "../../../../../../modules/payin/settings/options"
import { PayinClient } from "../../../../../../client/client"
import { PayinIpNotWhitelistedError, PayinServiceError, errorMessage } from "../../../../../../client/errors"
import { testConnectionSchema, zodFields } from "../../../../../../modules/payin/settings/overrides"
import { traceServiceCall } from "../../../../../../telemetry"
import { invalid, notFound, parseOr400, payinModule } from "../../../../../utils"

export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  const body = parseOr400(res, testConnectionSchema, req.body)
  if (!body) return
  const payin = payinModule(req)
  const settings = await payin.settings.provider(req.params.id, 0)
  if (!settings) {
    notFound(res, `No pay-in provider instance "${req.params.id}" in this store`)
    return
  }
  const saved = settings.options
  const typed = Boolean(body.baseUrl && body.baseUrl.trim() !== saved.baseUrl)
  const candidate = {
    ...saved,
    ...(body.apiKey ? { apiKey: body.apiKey } : {}),
    ...(body.baseUrl ? { baseUrl: body.baseUrl } : {}),
    ...(typeof body.timeoutMs === "number" ? { timeoutMs: body.timeoutMs } : {}),
    ...(typeof body.signRequests === "boolean" ? { signRequests: body.signRequests } : {}),
  }
  if (typed && !body.apiKey) {
    // the write-only key never travels to a URL the admin only typed in
    invalid(res, [{ path: "apiKey", code: "api_key_required", message: "enter the API key to test a base URL other than the saved one" }])
    return
  }
  const checked = providerOptionsSchema.safeParse(candidate)
  if (!checked.success) {
    invalid(res, zodFields(checked.error))
    return
  }
  const options = checked.data
  if (typed && options.baseUrl) {
    const refusal = await payin.settings.baseUrlRefusal(req.params.id, options.baseUrl)
    if (refusal) {
      invalid(res, [{ path: "baseUrl", code: "base_url_not_allowed", message: refusal }])
      return
    }
  }
  const started = Date.now()
  const base = { base_url: options.baseUrl ?? null }
  if (!options.apiKey || !options.baseUrl) {
    const missing = `No ${!options.apiKey ? "API key" : "base URL"} is set for this instance`
    res.json({
      ok: false,
      ...base,
      duration_ms: 0,
      error: { kind: "not_configured", message: settings.error && !options.apiKey ? `${missing}: ${settings.error}` : missing },
      outgoing_address: null,
      server_addresses: serverAddresses(),
    })
    return
  }
  // a client of its own (one attempt, short timeout): a test with unsaved values must not replace the one in use
  const client = new PayinClient({
    apiKey: options.apiKey,
    baseUrl: options.baseUrl,
    timeoutMs: Math.min(options.timeoutMs, 10_000),
    signRequests: options.signRequests,
    getAttempts: 1,
    ownPool: true,
    // connections to a base URL from the admin are checked again (its name may resolve elsewhere now)
    refusePrivateAddresses: payin.settings.guardsAddresses(req.params.id, options.baseUrl),
    // a typed URL's answers are not the service's: its text is never quoted back
    quoteAnswers: !typed,
    // traced, not counted: a test of unsaved values says nothing of the instance's health
    around: traceServiceCall,
  })
  try {
    const [banks, currencies] = await Promise.all([client.listBanks(), client.listCurrencies()])
    res.json({ ok: true, ...base, duration_ms: Date.now() - started, banks, currencies })
  } catch (error) {
    const e = error instanceof PayinServiceError ? error : null
    res.json({
      ok: false,
      ...base,
      duration_ms: Date.now() - started,
      error: {
        kind: e?.kind ?? "network",
        ...(e?.status ? { status: e.status } : {}),
        ...(e?.code ? { code: e.code } : {}),
        message: typed ? typedUrlFailure(e) : e ? e.message : errorMessage(error),
      },
      outgoing_address: error instanceof PayinIpNotWhitelistedError ? error.address : null,
      server_addresses: serverAddresses(),
    })
  } finally {
    await client.close()
  }
}

function typedUrlFailure(error: PayinServiceError | null): string {
  const status = error?.status ? ` (status ${error.status})` : ""
  switch (error?.kind) {
    case "unauthorized":
      return "The URL refused the API key (401)"
    case "ip_not_whitelisted":
      return "The URL refused this server's address (403): add the server's outgoing IP address to the whitelist in the merchant panel"
    case "timeout":
      return "The URL did not answer in time"
    case "network":
      return "The URL could not be reached"
    case "address_not_allowed":
      return "The URL's host resolves to an address that is not public"
    case "response_too_large":
      return `The URL's answer was too large${status}`
    case "malformed_response":
      return `The URL did not answer as the payment service does${status}`
    default:
      return `The URL answered with an error${status}`
  }
}

/** This server's non-internal addresses: a hint of what to whitelist when the service names none. */
function serverAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a): a is NonNullable<typeof a> => Boolean(a && !a.internal))
    .map((a) => a.address)
}
