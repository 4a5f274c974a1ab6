import { MedusaStoreRequest, MedusaResponse } from "@medusajs/framework/http"
import { instanceIdOf, payinProviderId } from "../../../../provider-id"
import { errorMessage } from "../../../../client/errors"
import type { PayinBanksResponse, PayinStoreError } from "../../../../storefront/types"
import { notFound, parseOr400, payinModule } from "../../../utils"
import { currencySupported, filterBanks } from "../banks"
import { BanksCache, BanksSnapshot, banksCacheKey } from "../banks-cache"
import { findCart } from "../lookups"
import { chooseProvider, inSalesChannels } from "../scope"
import { banksQuerySchema } from "../validators"
import { withCode, type PayinErrorCode } from "../../../../error-code"
import { storeRoute } from "../unavailable"

const cache = new BanksCache()

export const GET = storeRoute(banks)

async function banks(req: MedusaStoreRequest, res: MedusaResponse): Promise<void> {
  const query = parseOr400(res, banksQuerySchema, req.query)
  if (!query) return
  const payin = payinModule(req)

  let currency = query.currency_code
  let regionProviders: string[] | undefined
  if (query.cart_id) {
    const cart = await findCart(req.scope, query.cart_id)
    if (!cart || !inSalesChannels(cart.sales_channel_id, req.publishable_key_context?.sales_channel_ids)) {
      notFound(res, `Cart with id: ${query.cart_id} was not found`)
      return
    }
    currency = cart.currency_code.toUpperCase()
    regionProviders = cart.region_provider_ids
  }

  const { providerId, enabledInRegion } = chooseProvider({
    requested: query.provider_id,
    configured: payin.settings.instanceIds().map((id) => payinProviderId(id)),
    regionProviders,
    defaultId: payinProviderId(),
  })
  if (!providerId) {
    notFound(
      res,
      query.provider_id ? `No pay-in provider "${query.provider_id}" in this store` : "No pay-in provider is configured in this store"
    )
    return
  }

  const instanceId = instanceIdOf(providerId)!
  const options = await payin.settings.providerOptions(instanceId)
  if (!options?.apiKey || !options.baseUrl) {
    unavailable(res, "payin_not_configured", "Pay-in payments are not configured yet.")
    return
  }
  const logger = req.scope.resolve("logger")
  let listed: { snapshot: BanksSnapshot; stale: boolean }
  try {
    listed = await cache.get(
      instanceId,
      banksCacheKey(instanceId, options.baseUrl, options.apiKey),
      async (previous) => {
        const [banks, currencies] = await payin.clients.withClient(instanceId, async (client) => {
          const answers = await Promise.allSettled([client.listBanks(), client.listCurrencies()])
          if (answers[0].status === "rejected") throw answers[0].reason
          return answers
        })
        if (banks.status === "rejected") throw banks.reason
        return {
          banks: banks.value,
          // the currency list only decides `available`: without it, the last one read (or none) serves
          currencies:
            currencies.status === "fulfilled"
              ? currencies.value.map((c) => c.fiatCurrency.toUpperCase())
              : (previous?.currencies ?? null),
        }
      },
      // once per failed fetch, not per request; the client's messages never hold the API key
      (error) => logger.warn(`payin (${providerId}): could not read the bank list: ${errorMessage(error)}`)
    )
  } catch {
    unavailable(res, "payin_unavailable", "The payment service is not responding right now. Please try again in a minute.")
    return
  }

  const { snapshot, stale } = listed
  const filtered = filterBanks(snapshot.banks, {
    currency: currency!,
    allowedBanks: options.allowedBanks,
    allowedMethods: options.allowedMethods,
  })
  const available = currencySupported(snapshot.currencies, currency!) && filtered.banks.length > 0 && enabledInRegion
  const body: PayinBanksResponse = {
    provider_id: providerId,
    currency: currency!,
    available,
    banks: available ? filtered.banks : [],
    methods: available ? filtered.methods : [],
    stale,
    fetched_at: new Date(snapshot.fetchedAt).toISOString(),
  }
  res.json(body)
}

/** Fixed text, never the key, URL or the service's words. */
function unavailable(res: MedusaResponse, code: PayinErrorCode, message: string): void {
  const body: PayinStoreError = { type: "payin_unavailable", code, message: withCode(message, code) }
  res.status(503).json(body)
}
