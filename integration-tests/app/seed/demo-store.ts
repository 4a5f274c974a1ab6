/**
 * Seeds a store that can check out with the pay-in provider: a RUB region with the provider
 * enabled, a sales channel with a publishable key, a stock location with a shipping option, a
 * product priced in RUB and an admin user. Idempotent: a second run finds what the first made
 * (the demo reuses its data) and returns the same ids.
 *
 * Used by the demo (`npm run demo`, through `medusa exec`) and by the integration tests, so the
 * demo's store is the tested store.
 */
import {
  createApiKeysWorkflow,
  createProductsWorkflow,
  createRegionsWorkflow,
  createSalesChannelsWorkflow,
  createShippingOptionsWorkflow,
  createShippingProfilesWorkflow,
  createStockLocationsWorkflow,
  createTaxRegionsWorkflow,
  linkSalesChannelsToApiKeyWorkflow,
  linkSalesChannelsToStockLocationWorkflow,
  updateStoresWorkflow,
} from "@medusajs/medusa/core-flows"
import { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules, ProductStatus } from "@medusajs/framework/utils"

export const DEMO = {
  regionName: "Russia (pay-in demo)",
  currency: "rub",
  country: "ru",
  salesChannelName: "Pay-in demo storefront",
  apiKeyTitle: "Pay-in demo storefront",
  stockLocationName: "Moscow warehouse",
  fulfillmentSetName: "Moscow warehouse delivery",
  shippingOptionName: "Courier",
  productHandle: "payin-demo-tshirt",
  variantSku: "PAYIN-DEMO-TSHIRT",
  /** Major units (RUB). */
  productPrice: 1490,
  shippingPrice: 300,
}

export type DemoSeedInput = {
  providerIds: string[]
  adminEmail: string
  adminPassword: string
}

export type DemoSeedResult = {
  regionId: string
  salesChannelId: string
  publishableKey: string
  stockLocationId: string
  shippingOptionId: string
  productId: string
  productVariantId: string
  adminEmail: string
  created: boolean
}

export async function seedDemoStore(container: MedusaContainer, input: DemoSeedInput): Promise<DemoSeedResult> {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const link = container.resolve(ContainerRegistrationKeys.LINK)
  const regionModule = container.resolve(Modules.REGION)
  const salesChannelModule = container.resolve(Modules.SALES_CHANNEL)
  const apiKeyModule = container.resolve(Modules.API_KEY)
  const fulfillmentModule = container.resolve(Modules.FULFILLMENT)
  const stockLocationModule = container.resolve(Modules.STOCK_LOCATION)
  const productModule = container.resolve(Modules.PRODUCT)
  const storeModule = container.resolve(Modules.STORE)
  const taxModule = container.resolve(Modules.TAX)
  let created = false

  // Store currency
  const [store] = await storeModule.listStores({}, { relations: ["supported_currencies"] })
  if (store && !store.supported_currencies?.some((c) => c.currency_code === DEMO.currency)) {
    await updateStoresWorkflow(container).run({
      input: {
        selector: { id: store.id },
        update: {
          supported_currencies: [
            ...(store.supported_currencies ?? []).map((c) => ({ currency_code: c.currency_code, is_default: false })),
            { currency_code: DEMO.currency, is_default: true },
          ],
        },
      },
    })
  }

  // Sales channel
  let [salesChannel] = await salesChannelModule.listSalesChannels({ name: DEMO.salesChannelName })
  if (!salesChannel) {
    const { result } = await createSalesChannelsWorkflow(container).run({
      input: { salesChannelsData: [{ name: DEMO.salesChannelName }] },
    })
    salesChannel = result[0]
    created = true
  }
  if (store && !store.default_sales_channel_id) {
    await updateStoresWorkflow(container).run({
      input: { selector: { id: store.id }, update: { default_sales_channel_id: salesChannel.id } },
    })
  }

  // Region with the provider(s) enabled; an existing demo region gets them re-linked.
  let [region] = await regionModule.listRegions({ name: DEMO.regionName })
  if (!region) {
    const { result } = await createRegionsWorkflow(container).run({
      input: {
        regions: [
          {
            name: DEMO.regionName,
            currency_code: DEMO.currency,
            countries: [DEMO.country],
            payment_providers: input.providerIds,
            automatic_taxes: true,
          },
        ],
      },
    })
    region = result[0]
    created = true
  } else {
    const { data } = await query.graph({
      entity: "region",
      fields: ["id", "payment_providers.id"],
      filters: { id: region.id },
    })
    const linked = new Set((data[0]?.payment_providers ?? []).map((p: { id: string } | null) => p?.id))
    const missing = input.providerIds.filter((id) => !linked.has(id))
    if (missing.length) {
      await link.create(
        missing.map((payment_provider_id) => ({
          [Modules.REGION]: { region_id: region.id },
          [Modules.PAYMENT]: { payment_provider_id },
        }))
      )
    }
  }

  const taxRegions = await taxModule.listTaxRegions({ country_code: DEMO.country })
  if (!taxRegions.length) {
    await createTaxRegionsWorkflow(container).run({
      input: [{ country_code: DEMO.country, provider_id: "tp_system" }],
    })
  }

  // Publishable key
  let [apiKey] = await apiKeyModule.listApiKeys({ title: DEMO.apiKeyTitle, type: "publishable" })
  if (!apiKey) {
    const { result } = await createApiKeysWorkflow(container).run({
      input: { api_keys: [{ title: DEMO.apiKeyTitle, type: "publishable", created_by: "" }] },
    })
    apiKey = result[0]
    await linkSalesChannelsToApiKeyWorkflow(container).run({
      input: { id: apiKey.id, add: [salesChannel.id] },
    })
    created = true
  }

  // Shipping: profile, stock location, fulfillment set + zone, flat option
  let [shippingProfile] = await fulfillmentModule.listShippingProfiles({ type: "default" })
  if (!shippingProfile) {
    const { result } = await createShippingProfilesWorkflow(container).run({
      input: { data: [{ name: "Default Shipping Profile", type: "default" }] },
    })
    shippingProfile = result[0]
  }

  let [stockLocation] = await stockLocationModule.listStockLocations({ name: DEMO.stockLocationName })
  if (!stockLocation) {
    const { result } = await createStockLocationsWorkflow(container).run({
      input: {
        locations: [
          {
            name: DEMO.stockLocationName,
            address: { city: "Moscow", country_code: "RU", address_1: "Tverskaya 1" },
          },
        ],
      },
    })
    stockLocation = result[0]
    await linkSalesChannelsToStockLocationWorkflow(container).run({
      input: { id: stockLocation.id, add: [salesChannel.id] },
    })
    await link.create({
      [Modules.STOCK_LOCATION]: { stock_location_id: stockLocation.id },
      [Modules.FULFILLMENT]: { fulfillment_provider_id: "manual_manual" },
    })
    created = true
  }

  let [fulfillmentSet] = await fulfillmentModule.listFulfillmentSets(
    { name: DEMO.fulfillmentSetName },
    { relations: ["service_zones"] }
  )
  if (!fulfillmentSet) {
    fulfillmentSet = await fulfillmentModule.createFulfillmentSets({
      name: DEMO.fulfillmentSetName,
      type: "shipping",
      service_zones: [{ name: "Russia", geo_zones: [{ country_code: DEMO.country, type: "country" }] }],
    })
    await link.create({
      [Modules.STOCK_LOCATION]: { stock_location_id: stockLocation.id },
      [Modules.FULFILLMENT]: { fulfillment_set_id: fulfillmentSet.id },
    })
  }

  let [shippingOption] = await fulfillmentModule.listShippingOptions({ name: DEMO.shippingOptionName })
  if (!shippingOption) {
    const { result } = await createShippingOptionsWorkflow(container).run({
      input: [
        {
          name: DEMO.shippingOptionName,
          price_type: "flat",
          provider_id: "manual_manual",
          service_zone_id: fulfillmentSet.service_zones[0].id,
          shipping_profile_id: shippingProfile.id,
          type: { label: "Courier", description: "Delivery in 1-2 days.", code: "courier" },
          prices: [
            { currency_code: DEMO.currency, amount: DEMO.shippingPrice },
            { region_id: region.id, amount: DEMO.shippingPrice },
          ],
          rules: [
            { attribute: "enabled_in_store", value: "true", operator: "eq" },
            { attribute: "is_return", value: "false", operator: "eq" },
          ],
        },
      ],
    })
    shippingOption = result[0]
  }

  // Product
  let [product] = await productModule.listProducts({ handle: DEMO.productHandle }, { relations: ["variants"] })
  if (!product) {
    const { result } = await createProductsWorkflow(container).run({
      input: {
        products: [
          {
            title: "Pay-in demo T-shirt",
            handle: DEMO.productHandle,
            description: "A product to check out with the pay-in provider.",
            status: ProductStatus.PUBLISHED,
            shipping_profile_id: shippingProfile.id,
            options: [{ title: "Size", values: ["One size"] }],
            variants: [
              {
                title: "One size",
                sku: DEMO.variantSku,
                options: { Size: "One size" },
                manage_inventory: false,
                prices: [{ amount: DEMO.productPrice, currency_code: DEMO.currency }],
              },
            ],
            sales_channels: [{ id: salesChannel.id }],
          },
        ],
      },
    })
    product = result[0]
    created = true
  }

  await ensureAdminUser(container, input.adminEmail, input.adminPassword)

  return {
    regionId: region.id,
    salesChannelId: salesChannel.id,
    publishableKey: apiKey.token,
    stockLocationId: stockLocation.id,
    shippingOptionId: shippingOption.id,
    productId: product.id,
    productVariantId: product.variants[0].id,
    adminEmail: input.adminEmail,
    created,
  }
}

/** An admin user who logs in with email and password (what `medusa user` does). */
export async function ensureAdminUser(container: MedusaContainer, email: string, password: string): Promise<string> {
  const userModule = container.resolve(Modules.USER)
  const authModule = container.resolve(Modules.AUTH)
  let [user] = await userModule.listUsers({ email })
  if (!user) {
    user = await userModule.createUsers({ email })
  }
  const identities = await authModule.listProviderIdentities({ entity_id: email, provider: "emailpass" })
  if (!identities.length) {
    const { authIdentity, error } = await authModule.register("emailpass", { body: { email, password } })
    if (error || !authIdentity) {
      throw new Error(`could not create the admin login for ${email}: ${error}`)
    }
    await authModule.updateAuthIdentities({ id: authIdentity.id, app_metadata: { user_id: user.id } })
  }
  return user.id
}
