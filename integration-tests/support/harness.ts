// The one harness of the HTTP specs on the test app (integration-tests/app): the runner on the
// app, the sandboxes its pay-in instances talk to (started before the app boots), the store a
// test starts from (sandboxes reset → demo store seeded → a storefront → admin headers, before
// each test), the plugin's events as they are emitted, and every read or write of the ledger a
// spec makes through the container (`ledgerOf`: the one place to adapt when the module changes).
import path from "path"
import { request } from "undici"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { PAYIN_MODULE } from "../../medusa-plugin.config"
import { sign } from "../../src/client/signature"
import { PAYIN_EVENTS } from "../../src/modules/payin/ledger/events"
import { applyWebhookInbox, inboxDrain } from "../../src/money-path/inbox"
import type { RunningSandbox } from "../../src/sandbox"
import { DemoSeedResult, seedDemoStore } from "../app/seed/demo-store"
import { TEST_ADMIN, adminHeaders } from "./admin"
import { control, sandboxForApp, twoSandboxesForApp } from "./sandbox"
import { Storefront, cartWithPayin, placedOrderAwaitingPayment } from "./storefront"

export { PAYIN_EVENTS, PAYIN_MODULE }

type Rows = Promise<any[]>
type Filters = Record<string, unknown>

/**
 * Every read and write of the plugin's ledger (pay-ins, webhook inbox, job runs, notifications
 * owed) that a spec makes through the container, by name.
 */
export function ledgerOf(getContainer: () => MedusaContainer) {
  const payin = () => getContainer().resolve(PAYIN_MODULE) as any
  const rows = (filters: Filters = {}, config?: Record<string, unknown>): Rows => payin().listPayinTransactions(filters, config)
  return {
    /** Pay-ins matching `filters` (the module's generated list). */
    rows,
    /** The first pay-in matching `filters`. */
    row: async (filters: Filters) => (await rows(filters))[0] as any,
    /** Pay-ins created through the module's generated create. */
    create: (data: unknown) => payin().createPayinTransactions(data),
    /** A pay-in's detail as the admin reads it: the row, its status history. */
    detail: (id: string) => payin().queries.detail(id),
    /** A page of open pay-ins, as reconciliation selects them. */
    openPage: (before: Date, afterId: string, limit: number) => payin().queries.openPage(before, afterId, limit),
    /** The webhook apply path's lookups. */
    lookups: {
      withServiceId: (serviceId: string) => payin().ledger.withServiceId(serviceId),
      findBy: (column: string, value: string) => payin().ledger.findBy(column, value),
      ofCollections: (ids: string[]) => payin().ledger.ofCollections(ids),
      get: (id: string) => payin().ledger.get(id),
    },
    /** Flags a pay-in (false when it held the flag already). */
    flag: (id: string, flag: string, details: Record<string, unknown>): Promise<boolean> => payin().ledger.flag(id, flag, details),
    /** Records a pay-in the service knows and the ledger did not (flagged unknown_payin). */
    createUnknown: (providerId: string, tx: unknown) => payin().ledger.createUnknown(providerId, tx),
    /** A notification decided owed (before its send). */
    notificationDue: (orderId: string, kind: string, ledgerId: string, trigger: string) => payin().notifications.due(orderId, kind, ledgerId, trigger),
    /** The last recorded run of a scheduled job. */
    lastJobRun: (name: string) => payin().jobs.last(name),
    inbox: {
      events: (filters: Filters = {}): Rows => payin().listPayinWebhookEvents(filters),
      updateEvents: (data: unknown) => payin().updatePayinWebhookEvents(data),
      counters: (filters: Filters = {}): Rows => payin().listPayinWebhookCounters(filters),
      receive: (providerId: string, tx: unknown, rawBody: string) => payin().inbox.receive(providerId, tx, rawBody),
      settle: (id: string, outcome: unknown) => payin().inbox.settle(id, outcome),
      /** Writes the counts of duplicates acknowledged from memory (counted in batches). */
      flush: () => payin().inbox.flush(),
      deliveries: (providerId: string) => payin().inbox.deliveries(providerId),
      /** Folds delivery counts older than `minutes` into the day rows (the retention job's first step). */
      foldCounters: (minutes: number, limit = 100_000) => payin().inbox.foldCounters(minutes, limit),
      pruneApplied: (days: number, batch: number) => payin().inbox.pruneApplied(days, batch),
      pruneCounters: (days: number, batch: number) => payin().inbox.pruneCounters(days, batch),
      /** What this process holds in memory: webhooks being applied (its drain), applied ids remembered (the inbox). */
      memory: () => ({ inFlight: inboxDrain(getContainer()).active, appliedCached: payin().inbox.appliedCacheSize as number }),
      /** Applies every due inbox entry in this process and waits for them (what the worker's drain does). */
      drain: () => applyWebhookInbox(getContainer()),
      /** One inbox entry as stored (state, result, last_error, attempts). */
      entry: async (id: string) => (await payin().listPayinWebhookEvents({ id }))[0] as any,
    },
  }
}

export type Ledger = ReturnType<typeof ledgerOf>

/** The test runner on the test app, with what every spec on it uses. */
export interface AppHarness {
  api: any
  getContainer: () => MedusaContainer
  /** The plugin's module service (its settings; the ledger goes through `ledger`). */
  payin: () => any
  /** The settings the module holds in memory, read again from the database. */
  reloadSettings: () => Promise<void>
  /** The app's database connection (knex). */
  knex: () => any
  /** Raw SQL on the app's database (knex's result). */
  sql: (text: string, bindings?: unknown[]) => Promise<any>
  ledger: Ledger
  /** Seeds the demo store offering `providerIds` (its admin user: TEST_ADMIN). */
  seedStore: (providerIds: string[]) => Promise<DemoSeedResult>
}

export type AppSuite = { api: any; getContainer: () => MedusaContainer; dbConfig: any; dbConnection: any }

/** The runner on integration-tests/app; `suite` receives the harness and the runner's own arguments. */
export function appSpec(suite: (h: AppHarness, runner: AppSuite) => void): void {
  medusaIntegrationTestRunner({
    inApp: true,
    cwd: path.join(__dirname, "..", "app"),
    testSuite: (runner: any) => {
      const { api, getContainer } = runner
      const payin = () => getContainer().resolve(PAYIN_MODULE) as any
      const knex = () => getContainer().resolve(ContainerRegistrationKeys.PG_CONNECTION) as any
      suite(
        {
          api,
          getContainer,
          payin,
          reloadSettings: () => payin().settings.load(0),
          knex,
          sql: (text, bindings = []) => knex().raw(text, bindings),
          ledger: ledgerOf(getContainer),
          seedStore: (providerIds) =>
            seedDemoStore(getContainer(), { providerIds, adminEmail: TEST_ADMIN.email, adminPassword: TEST_ADMIN.password }),
        },
        runner
      )
      // webhooks still being applied finish before the runner resets the database (after the
      // spec's own afterEach hooks, which may release what holds them)
      afterEach(() => inboxDrain(getContainer()).settled())
    },
  })
}

export interface StoreOptions {
  /** The "default" instance's API key (its sandbox's merchant key). */
  key: string
  /** The "second" instance's key: a second sandbox when given. */
  secondKey?: string
  /** The payment providers the demo store's region offers (default: the instances and pp_system_default). */
  providerIds?: string[]
  /** Capture the plugin's events into `events` (emptied before each test). */
  events?: boolean
  /** Read the module's settings again after each reset (the database was restored from its template). */
  reloadSettings?: boolean
  /** The spec's own reset, first thing before each test (before the sandboxes' reset and the seed). */
  beforeReset?: () => void
}

export interface StoreHarness extends AppHarness {
  readonly sandbox: RunningSandbox
  /** The second instance's sandbox (with `secondKey` only). */
  readonly second: RunningSandbox
  readonly seed: DemoSeedResult
  readonly shop: Storefront
  readonly admin: { headers: Record<string, string> }
  /** The plugin's events since the test began (with `events: true`). */
  readonly events: { name: string; data: any }[]
  /** An order as the admin API shows it, with `fields`. */
  order: (orderId: string, fields?: string) => Promise<any>
  /** Medusa's payments of a payment session, with `fields` (query.graph). */
  paymentsOf: (sessionId: string, fields?: string[]) => Promise<any[]>
  /** Posts a webhook to an instance's route, signed with its key unless `signature` is given. */
  webhook: (body: string, to?: { instance?: string; key?: string; signature?: string }) => Promise<{ status: number; body: any }>
  /**
   * Posts a webhook and, once the route stored it, waits until it is applied (the drain of this
   * process, as the worker's): the answer, and `applied`, what applying it did (the entry's state,
   * its stored result — ledgerId, status, changed, effects, effectPending — and its last error).
   */
  webhookApplied: (
    body: string,
    to?: { instance?: string; key?: string; signature?: string }
  ) => Promise<{ status: number; body: any; applied: { state: string; last_error: string | null } & Record<string, any> }>
  /** Waits until both sandboxes delivered their webhooks and this process applied them. */
  deliver: () => Promise<void>
  /** A cart with its pay-in session, not completed (`payin`: the pay-in at the service). */
  cartWithPayin: (providerId?: string, data?: Record<string, unknown>) => Promise<{ cartId: string; session: any; payin: any }>
  /** A placed order waiting for its payment; resolves once the ledger links its pay-in to the order. */
  placedOrder: (providerId?: string) => Promise<{ cartId: string; session: any; payin: any; orderId: string }>
}

export const ORDER_FIELDS = "id,status,payment_status,total,*transactions"

/**
 * The runner on the test app with one sandbox per instance and, before each test, a fresh store:
 * the sandboxes reset (their merchants pointed at the app's webhook routes), the demo store
 * seeded, a storefront and admin headers.
 */
export function storeSpec(options: StoreOptions, suite: (h: StoreHarness, runner: AppSuite) => void): void {
  const sandboxes: { default?: RunningSandbox; second?: RunningSandbox } = {}
  if (options.secondKey) {
    twoSandboxesForApp({ default: options.key, second: options.secondKey }, (s) => Object.assign(sandboxes, s))
  } else {
    sandboxForApp(options.key, undefined, (s) => (sandboxes.default = s))
  }
  const started = () => Object.values(sandboxes) as RunningSandbox[]
  const providerIds = options.providerIds ?? ["pp_payin_default", ...(options.secondKey ? ["pp_payin_second"] : []), "pp_system_default"]

  appSpec((app, runner) => {
    const { api, getContainer } = app
    let seed: DemoSeedResult
    let shop: Storefront
    let admin: { headers: Record<string, string> }
    const events: { name: string; data: any }[] = []
    const keyOf = (instance: string) => (instance === "second" ? (options.secondKey as string) : options.key)
    const sandboxOf = (providerId: string) => (providerId === "pp_payin_second" ? h.second : h.sandbox)

    const h: StoreHarness = {
      ...app,
      get sandbox() {
        return sandboxes.default as RunningSandbox
      },
      get second() {
        if (!sandboxes.second) throw new Error("this spec has no second sandbox (storeSpec's secondKey)")
        return sandboxes.second
      },
      get seed() {
        return seed
      },
      get shop() {
        return shop
      },
      get admin() {
        return admin
      },
      events,
      order: async (orderId, fields = ORDER_FIELDS) => (await api.get(`/admin/orders/${orderId}?fields=${fields}`, admin)).data.order,
      paymentsOf: async (sessionId, fields = ["id", "amount", "captured_at", "captures.id", "captures.amount"]) => {
        const query = getContainer().resolve(ContainerRegistrationKeys.QUERY)
        const { data } = await query.graph({ entity: "payment", fields, filters: { payment_session_id: sessionId } })
        return data as any[]
      },
      webhook: async (body, to = {}) => {
        const instance = to.instance ?? "default"
        const res = await request(`${api.defaults.baseURL}/hooks/payin/${instance}`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-signature": to.signature ?? sign(body, to.key ?? keyOf(instance)) },
          body,
        })
        const text = await res.body.text()
        let parsed: any = text
        try {
          parsed = JSON.parse(text)
        } catch {
          // not JSON: the text as it came
        }
        return { status: res.statusCode, body: parsed }
      },
      webhookApplied: async (body, to) => {
        const answer = await h.webhook(body, to)
        if (!answer.body?.id) return { ...answer, applied: { state: "none", last_error: null } }
        await app.ledger.inbox.drain()
        const entry = await app.ledger.inbox.entry(answer.body.id)
        return { ...answer, applied: { state: entry.state, last_error: entry.last_error, ...(entry.result ?? {}) } }
      },
      deliver: async () => {
        for (const sandbox of started()) await sandbox.webhooksIdle()
        await app.ledger.inbox.drain()
      },
      cartWithPayin: (providerId = "pp_payin_default", data) => cartWithPayin(shop, sandboxOf(providerId), providerId, data),
      placedOrder: (providerId = "pp_payin_default") => placedOrderAwaitingPayment(shop, sandboxOf(providerId), app.ledger, providerId),
    }

    if (options.events) {
      beforeAll(() => {
        const eventBus = getContainer().resolve(Modules.EVENT_BUS) as any
        for (const name of Object.values(PAYIN_EVENTS)) {
          eventBus.subscribe(name, async (event: any) => {
            events.push({ name, data: event.data })
          })
        }
      })
    }

    beforeEach(async () => {
      options.beforeReset?.()
      events.length = 0
      const base = api.defaults.baseURL as string
      for (const [instance, sandbox] of Object.entries(sandboxes) as [string, RunningSandbox][]) {
        sandbox.updateMerchant({ webhookUrl: `${base}/hooks/payin/${instance}`, whitelist: [], apiKey: keyOf(instance) })
        await control(sandbox, "POST", "/_sandbox/reset") // faults, transactions and deliveries; the merchant stays
      }
      seed = await app.seedStore(providerIds)
      shop = new Storefront(api, seed)
      admin = await adminHeaders(getContainer(), api)
      if (options.reloadSettings) {
        await app.reloadSettings()
      }
    })

    suite(h, runner)
  })
}
