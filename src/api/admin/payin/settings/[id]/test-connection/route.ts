import { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { networkInterfaces } from "os"
import { providerOptionsSchema } from "../../../../../../modules/payin/options"
import { PayinClient } from "../../../../../../client/client"
import { PayinIpNotWhitelistedError, PayinServiceError, errorMessage } from "../../../../../../client/errors"
import { testConnectionSchema, zodFields } from "../../../../../../modules/payin/settings"
import { invalid, notFound, parseOr400, payinModule } from "../../../helpers"

/**
 * POST /admin/payin/settings/:id/test-connection: calls the service's banks and currency
 * endpoints with the saved settings, or with the unsaved values in the body, and reports what
 * happened. Always 200 with `ok` (400 for invalid input, 404 for an unknown instance). The stored
 * API key is sent only to the stored base URL: testing another base URL needs `apiKey` in the body.
 */
export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  const body = parseOr400(res, testConnectionSchema, req.body)
  if (!body) return
  const saved = await payinModule(req).settings.providerOptions(req.params.id, 0)
  if (!saved) {
    notFound(res, `No pay-in provider instance "${req.params.id}" in this store`)
    return
  }
  const candidate = {
    ...saved,
    ...(body.apiKey ? { apiKey: body.apiKey } : {}),
    ...(body.baseUrl ? { baseUrl: body.baseUrl } : {}),
    ...(typeof body.timeoutMs === "number" ? { timeoutMs: body.timeoutMs } : {}),
    ...(typeof body.signRequests === "boolean" ? { signRequests: body.signRequests } : {}),
  }
  if (body.baseUrl && body.baseUrl.trim() !== saved.baseUrl && !body.apiKey) {
    // the write-only key never travels to a URL the admin only typed in
    invalid(res, [{ path: "apiKey", message: "enter the API key to test a base URL other than the saved one" }])
    return
  }
  const checked = providerOptionsSchema.safeParse(candidate)
  if (!checked.success) {
    invalid(res, zodFields(checked.error))
    return
  }
  const options = checked.data
  const started = Date.now()
  const base = { base_url: options.baseUrl ?? null }
  if (!options.apiKey || !options.baseUrl) {
    res.json({
      ok: false,
      ...base,
      duration_ms: 0,
      error: { kind: "not_configured", message: `No ${!options.apiKey ? "API key" : "base URL"} is set for this instance` },
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
        message: e ? e.message : errorMessage(error),
      },
      outgoing_address: error instanceof PayinIpNotWhitelistedError ? error.address : null,
      server_addresses: serverAddresses(),
    })
  } finally {
    await client.close()
  }
}

/** This server's non-internal addresses: a hint of what to whitelist when the service names none. */
function serverAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a): a is NonNullable<typeof a> => Boolean(a && !a.internal))
    .map((a) => a.address)
}
