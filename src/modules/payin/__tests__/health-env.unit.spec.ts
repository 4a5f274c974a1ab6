// What the health check is told of its process: production by the same rule as the private-address
// guard, and the webhook URL by the same rule as the admin shows it.
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { webhookBaseUrl } from "../webhook-url"
import PayinModuleService from "../service"
import { allowsPrivateBaseUrl } from "../settings/parse"

const healthEnv = (config: unknown, base?: string | null) =>
  PayinModuleService.prototype.healthEnv.call({ cradle_: { [ContainerRegistrationKeys.CONFIG_MODULE]: config } } as never, base)

describe("the health's environment", () => {
  const saved = process.env.NODE_ENV
  afterEach(() => {
    process.env.NODE_ENV = saved
  })

  it.each([
    [undefined, true],
    ["production", true],
    ["staging", true],
    ["development", false],
    ["test", false],
  ])("NODE_ENV %s: production %s, and a private base URL allowed only outside it", (value, production) => {
    if (value === undefined) delete process.env.NODE_ENV
    else process.env.NODE_ENV = value
    expect(healthEnv({}).production).toBe(production)
    expect(allowsPrivateBaseUrl({})).toBe(!production)
  })

  it("builds the webhook URL from medusa-config's backend URL as the admin's routes do", () => {
    for (const backendUrl of ["https://api.shop.example/", "https://api.shop.example/medusa//", "/", "https://user:pw@api.shop.example"]) {
      const config = { admin: { backendUrl } }
      const shown = webhookBaseUrl({ headers: {}, socket: {} as never, scope: { resolve: () => config } })
      expect([backendUrl, healthEnv(config).webhookUrl("eu")]).toEqual([backendUrl, shown.startsWith("https://<") ? null : `${shown}/hooks/payin/eu`])
    }
    expect(healthEnv({}, "https://given.example").webhookUrl("default")).toBe("https://given.example/hooks/payin/default")
  })
})
