import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { payinProviderId } from "../../medusa-plugin.config"
import { DEMO, seedDemoStore } from "../app/seed/demo-store"
import { TEST_ADMIN, adminHeaders } from "../support/admin"
import { appSpec } from "../support/harness"

jest.setTimeout(180_000)

appSpec((h, { dbConnection }) => {
  const { api, getContainer } = h
  describe("the plugin in a Medusa app", () => {
    it("lists pp_payin_default, enabled, to an authenticated admin", async () => {
      const headers = await adminHeaders(getContainer(), api)
      const { data } = await api.get("/admin/payments/payment-providers?limit=100", headers)
      const ids = data.payment_providers.map((p: { id: string }) => p.id)
      expect(ids).toContain("pp_payin_default")
      const payin = data.payment_providers.find((p: { id: string }) => p.id === "pp_payin_default")
      expect(payin.is_enabled).toBe(true)
    })

    it("refuses the provider list without an admin session", async () => {
      const res = await api.get("/admin/payments/payment-providers").catch((e: any) => e.response)
      expect(res.status).toBe(401)
    })

    it("migrates the payin module: its ledger table exists and the module service works", async () => {
      const rows = await dbConnection.raw(
        "select column_name from information_schema.columns where table_name = 'payin_transaction'"
      )
      const columns = rows.rows.map((r: { column_name: string }) => r.column_name)
      expect(columns).toEqual(
        expect.arrayContaining(["id", "provider_id", "session_id", "service_id", "status", "amount", "currency_code"])
      )

      const created = await h.ledger.create({
        provider_id: payinProviderId(),
        session_id: "payses_test_1",
        amount: "1490.50",
        currency_code: "rub",
      })
      expect(created.id).toMatch(/^payintx_/)
      expect(created.status).toBe("creating")
      // one ledger row per payment session
      await expect(
        h.ledger.create({
          provider_id: payinProviderId(),
          session_id: "payses_test_1",
          amount: "1",
          currency_code: "rub",
        })
      ).rejects.toThrow()
    })

    it("seeds the demo store: RUB region with the provider enabled, product, key, shipping", async () => {
      const container = getContainer()
      const first = await seedDemoStore(container, {
        providerIds: [payinProviderId(), "pp_system_default"],
        adminEmail: TEST_ADMIN.email,
        adminPassword: TEST_ADMIN.password,
      })
      expect(first.created).toBe(true)
      const again = await seedDemoStore(container, {
        providerIds: [payinProviderId(), "pp_system_default"],
        adminEmail: TEST_ADMIN.email,
        adminPassword: TEST_ADMIN.password,
      })
      expect(again.created).toBe(false)
      expect(again.regionId).toBe(first.regionId)
      expect(again.productVariantId).toBe(first.productVariantId)
      expect(again.publishableKey).toBe(first.publishableKey)

      const headers = await adminHeaders(container, api)
      const { data } = await api.get(
        `/admin/regions/${first.regionId}?fields=id,currency_code,*payment_providers`,
        headers
      )
      expect(data.region.currency_code).toBe(DEMO.currency)
      expect(data.region.payment_providers.map((p: { id: string }) => p.id)).toContain("pp_payin_default")

      // the storefront sees the product priced in RUB and the shipping option for a RU cart
      const store = { headers: { "x-publishable-api-key": first.publishableKey } }
      const products = await api.get(`/store/products?region_id=${first.regionId}&fields=*variants.calculated_price`, store)
      const product = products.data.products.find((p: { id: string }) => p.id === first.productId)
      expect(product.variants[0].calculated_price.calculated_amount).toBe(DEMO.productPrice)

      const cart = await api.post(
        "/store/carts",
        { region_id: first.regionId, items: [{ variant_id: first.productVariantId, quantity: 1 }] },
        store
      )
      await api.post(
        `/store/carts/${cart.data.cart.id}`,
        { shipping_address: { country_code: DEMO.country, first_name: "A", last_name: "B", address_1: "x", city: "Moscow", postal_code: "101000" } },
        store
      )
      const options = await api.get(`/store/shipping-options?cart_id=${cart.data.cart.id}`, store)
      expect(options.data.shipping_options.map((o: { id: string }) => o.id)).toContain(first.shippingOptionId)
      const providers = await api.get(`/store/payment-providers?region_id=${first.regionId}`, store)
      expect(providers.data.payment_providers.map((p: { id: string }) => p.id)).toContain("pp_payin_default")

      // the seeded admin logs in with the seeded password
      const login = await api.post("/auth/user/emailpass", TEST_ADMIN)
      expect(typeof login.data.token).toBe("string")
      const query = container.resolve(ContainerRegistrationKeys.QUERY)
      const users = await query.graph({ entity: "user", fields: ["email"], filters: { email: TEST_ADMIN.email } })
      expect(users.data).toHaveLength(1)
      expect(container.resolve(Modules.PAYMENT)).toBeDefined()
    })
  })
})
