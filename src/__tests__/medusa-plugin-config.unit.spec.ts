import { ALERTABLE_SIGNALS } from "../modules/payin/signal-ids"
import {
  PayinConfigError,
  parsePluginOptions,
  parseProviderOptions,
  payinProviderId,
  withPayin,
} from "../../medusa-plugin.config"
import { type PayinPluginOptionsInput, RECONCILE_TICK_SECONDS } from "../modules/payin/settings/options"
import { payinLockOptions } from "../money-path/lock"

describe("parseProviderOptions", () => {
  it("fills defaults", () => {
    const options = parseProviderOptions({}, {})
    expect(options).toEqual({
      id: "default",
      timeoutMs: 15000,
      signRequests: true,
      paymentPage: {},
      allowedRedirectOrigins: [],
      allowedMethods: [],
      allowedBanks: [],
      amountPolicy: { mode: "fixed", tolerancePercent: 0 },
      paymentWindowSeconds: 900,
      manualRefunds: false,
      cancelUnpaidOrdersOnExpiry: true,
      payAgain: { enabled: false, graceHours: 24 },
      notifications: {
        enabled: false,
        channel: "email",
        instructionsTemplate: "payin.instructions",
        paidTemplate: "payin.paid",
        expiredTemplate: "payin.expired",
      },
    })
  })

  it("takes apiKey and baseUrl from the environment, the instance's own variables first", () => {
    const env = {
      PAYIN_API_KEY: "general-key-123",
      PAYIN_BASE_URL: "https://general.example",
      PAYIN_EU_SHOP_API_KEY: "instance-key-456",
    }
    expect(parseProviderOptions({ id: "eu-shop" }, env)).toMatchObject({
      apiKey: "instance-key-456",
      baseUrl: "https://general.example",
    })
    expect(parseProviderOptions({ id: "other", apiKey: "explicit-key-789" }, env).apiKey).toBe("explicit-key-789")
  })

  it("names every invalid field and never echoes the values", () => {
    let error: PayinConfigError | undefined
    try {
      parseProviderOptions(
        {
          id: "Bad Id",
          apiKey: "s3cr7",
          baseUrl: "ftp://nope",
          timeoutMs: 10,
          allowedRedirectOrigins: ["https://shop.example/path"],
          allowedMethods: ["cash" as never],
          paymentPage: { locale: "english" },
          surprise: true,
        } as never,
        {}
      )
    } catch (e) {
      error = e as PayinConfigError
    }
    expect(error).toBeInstanceOf(PayinConfigError)
    const paths = error!.issues.map((i) => i.path)
    expect(paths).toEqual(
      expect.arrayContaining([
        "id",
        "apiKey",
        "baseUrl",
        "timeoutMs",
        "allowedRedirectOrigins.0",
        "allowedMethods.0",
        "paymentPage.locale",
        "",
      ])
    )
    expect(error!.message).toContain('unknown option(s) "surprise"')
    expect(error!.message).not.toContain("s3cr7")
    expect(error!.message).toContain('pp_payin_Bad Id')
  })

  it("normalises origins and locales", () => {
    const options = parseProviderOptions(
      { allowedRedirectOrigins: ["https://shop.example/"], paymentPage: { locale: "ru" } },
      {}
    )
    expect(options.allowedRedirectOrigins).toEqual(["https://shop.example"])
    expect(options.paymentPage.locale).toBe("RU")
  })
})

describe("parsePluginOptions", () => {
  it("defaults and bounds the reconciliation interval", () => {
    expect(parsePluginOptions(undefined)).toEqual({
      reconcileIntervalSeconds: 300,
      reconcileAfterSeconds: 120,
      reconcileConcurrency: 8,
      effectRetryLimit: 5,
      lockTtlSeconds: 30,
      webhookRetentionDays: 30,
      webhookCounterRetentionDays: 90,
      historyRetentionDays: 0,
      pruneBatchSize: 1000,
      healthCheckIntervalSeconds: 60,
      alertsEnabled: true,
      alertSignals: [...ALERTABLE_SIGNALS],
      alertEmailRecipients: [],
      alertEmailChannel: "email",
      alertMinIntervalMinutes: 60,
      healthMissedWebhooks: 2,
      healthRejectedWebhooks: 5,
      healthServiceErrorPercent: 25,
      healthRequisitesUnavailablePercent: 50,
      healthUncapturedMinutes: 15,
      webhookBacklogSeconds: 120,
      apiKeyMaxAgeDays: 365,
    })
    // the job ticks every RECONCILE_TICK_SECONDS: every accepted interval is kept
    expect(RECONCILE_TICK_SECONDS).toBeLessThan(10)
    expect(parsePluginOptions({ reconcileIntervalSeconds: 10 }).reconcileIntervalSeconds).toBe(10)
    expect(() => parsePluginOptions({ reconcileIntervalSeconds: 5 })).toThrow(/at least 10/)
  })

  it("alert settings: recipients must be e-mail addresses, signals known ones (deduplicated), bounds named", () => {
    expect(parsePluginOptions({ alertEmailRecipients: [" ops@shop.example "], alertSignals: ["service_ip", "service_ip"] })).toMatchObject({
      alertEmailRecipients: ["ops@shop.example"],
      alertSignals: ["service_ip"],
    })
    expect(() => parsePluginOptions({ alertEmailRecipients: ["not-an-address"] })).toThrow(/alertEmailRecipients entries must be e-mail addresses/)
    expect(() => parsePluginOptions({ alertSignals: ["stray_payments"] } as unknown as PayinPluginOptionsInput)).toThrow(/alertSignals entries must be one of/)
    expect(() => parsePluginOptions({ healthCheckIntervalSeconds: 1 })).toThrow(/healthCheckIntervalSeconds must be at least 5/)
    expect(() => parsePluginOptions({ healthServiceErrorPercent: 101 })).toThrow(/healthServiceErrorPercent must be at most 100/)
  })

  it("bounds the retention windows (0 keeps forever) and the prune batch; a bad value stops the boot naming the field", () => {
    expect(parsePluginOptions({ webhookRetentionDays: 0, webhookCounterRetentionDays: 3650 })).toMatchObject({
      webhookRetentionDays: 0,
      webhookCounterRetentionDays: 3650,
    })
    expect(() => parsePluginOptions({ webhookRetentionDays: -1 })).toThrow(
      /invalid plugin options:\n  - webhookRetentionDays: webhookRetentionDays must be 0 \(keep forever\) or more/
    )
    expect(() => parsePluginOptions({ webhookCounterRetentionDays: 1.5 })).toThrow(/webhookCounterRetentionDays must be a whole number of days/)
    expect(() => parsePluginOptions({ pruneBatchSize: 100_000 })).toThrow(/pruneBatchSize must be at most 10000/)
  })

  it("bounds the per-pay-in lock; a webhook waits for a held lock less than its lifetime, at most 5 s (within its 8 s answer)", () => {
    expect(() => parsePluginOptions({ lockTtlSeconds: 1 })).toThrow(/lockTtlSeconds must be at least 5/)
    expect(payinLockOptions(30)).toEqual({ expireSeconds: 30, waitMs: 5_000 })
    expect(payinLockOptions(8)).toEqual({ expireSeconds: 8, waitMs: 4_000 })
  })
})

describe("withPayin", () => {
  const env = process.env
  beforeEach(() => {
    process.env = { ...env }
    delete process.env.PAYIN_API_KEY
    delete process.env.PAYIN_BASE_URL
  })
  afterAll(() => {
    process.env = env
  })

  it("registers the plugin, and a payment module that hosts the provider and depends on the payin module", () => {
    const config = withPayin({ projectConfig: { databaseUrl: "postgres://x" } }, { providers: [{ id: "default" }] })
    expect(config.plugins).toEqual([
      {
        resolve: "medusa-plugin-payin",
        options: expect.objectContaining({ reconcileIntervalSeconds: 300, providers: [expect.objectContaining({ id: "default" })] }),
      },
    ])
    expect(config.modules).toEqual([
      {
        resolve: "@medusajs/medusa/payment",
        dependencies: ["payin"],
        options: {
          providers: [
            expect.objectContaining({
              resolve: "medusa-plugin-payin/providers/payin",
              id: "default",
              options: expect.objectContaining({ id: "default", timeoutMs: 15000 }),
            }),
          ],
        },
      },
    ])
    expect(config.projectConfig).toEqual({ databaseUrl: "postgres://x" })
  })

  it("merges into an existing payment module entry and keeps its other providers", () => {
    const stripe = { resolve: "@medusajs/medusa/payment-stripe", id: "stripe", options: { apiKey: "sk" } }
    const config = withPayin(
      {
        modules: [
          { resolve: "@medusajs/medusa/payment", dependencies: ["other"], options: { providers: [stripe] } },
          { resolve: "./src/modules/blog" },
        ],
      },
      { providers: [{ id: "rub" }, { id: "kzt" }] }
    )
    const modules = config.modules as any[]
    expect(modules).toHaveLength(2)
    expect(modules[0].dependencies).toEqual(["other", "payin"])
    expect(modules[0].options.providers.map((p: any) => p.id)).toEqual(["stripe", "rub", "kzt"])
    expect(modules[1]).toEqual({ resolve: "./src/modules/blog" })
  })

  it("is idempotent: calling it twice registers each thing once", () => {
    const once = withPayin({}, { providers: [{ id: "default" }] })
    const twice = withPayin(once, { providers: [{ id: "default" }] })
    expect(twice.plugins).toHaveLength(1)
    expect((twice.modules as any[])[0].options.providers).toHaveLength(1)
    expect((twice.modules as any[])[0].dependencies).toEqual(["payin"])
  })

  it("supports the deprecated object form of modules", () => {
    const config = withPayin({ modules: { payment: { resolve: "@medusajs/medusa/payment", options: {} } } as never })
    expect((config.modules as any).payment.dependencies).toEqual(["payin"])
    expect((config.modules as any).payment.options.providers[0].id).toBe("default")
  })

  it("registers the module by path when the app is the plugin's own source", () => {
    const config = withPayin({}, { source: "./src" })
    expect(config.plugins).toBeUndefined()
    const modules = config.modules as any[]
    expect(modules.find((m) => m.resolve === "./src/modules/payin")).toEqual({
      resolve: "./src/modules/payin",
      options: expect.objectContaining({ reconcileIntervalSeconds: 300, providers: [expect.objectContaining({ id: "default" })] }),
    })
    expect(modules.find((m) => m.resolve === "@medusajs/medusa/payment").options.providers[0].resolve).toBe(
      "./src/providers/payin"
    )
  })

  it("rejects duplicate provider ids and invalid options at config time", () => {
    expect(() => withPayin({}, { providers: [{ id: "a" }, { id: "a" }] })).toThrow(/used twice/)
    expect(() => withPayin({}, { providers: [{ timeoutMs: -1 }] })).toThrow(PayinConfigError)
  })

  it("builds provider ids as Medusa does", () => {
    expect(payinProviderId()).toBe("pp_payin_default")
    expect(payinProviderId("rub")).toBe("pp_payin_rub")
  })
})
