// The app behind this repository's integration tests and demo. It registers the plugin from its
// TypeScript source (./src is a symlink to the repository's src/) through the same withPayin()
// helper a store uses, so the documented path is the tested path.
import { defineConfig, loadEnv } from "@medusajs/framework/utils"
import { withPayin } from "../../medusa-plugin.config"
import { pauseFilePoints } from "../support/pause-file"

loadEnv(process.env.NODE_ENV || "development", process.cwd())

const insecureCookie = process.env.MEDUSA_INSECURE_COOKIE === "true"

// Medusa's production topology (production-topology.spec.ts): with PAYIN_APP_REDIS_URL the app
// uses Redis for the event bus, the workflow engine, locking and caching, and runs as a server or
// a worker by MEDUSA_WORKER_MODE (Medusa reads it when workerMode is left unset), as in README "Production".
const redisUrl = process.env.PAYIN_APP_REDIS_URL
const sharedModules = redisUrl
  ? [
      { resolve: "@medusajs/medusa/event-bus-redis", options: { redisUrl } },
      { resolve: "@medusajs/medusa/workflow-engine-redis", options: { redis: { redisUrl } } },
      {
        resolve: "@medusajs/medusa/locking",
        options: { providers: [{ resolve: "@medusajs/medusa/locking-redis", id: "locking-redis", is_default: true, options: { redisUrl } }] },
      },
      {
        resolve: "@medusajs/medusa/caching",
        options: { providers: [{ resolve: "@medusajs/medusa/caching-redis", id: "caching-redis", is_default: true, options: { redisUrl } }] },
      },
    ]
  : [
      // Locks that hold across processes: several Medusa instances share this database.
      {
        resolve: "@medusajs/medusa/locking",
        options: {
          providers: [{ resolve: "@medusajs/medusa/locking-postgres", id: "locking-postgres", is_default: true }],
        },
      },
    ]
// Medusa's Notification Module with its local provider (it only logs; the module stores the rows)
// for the channels the plugin's shopper notifications use ("email", the default) and the admin's
// feed: Medusa's default registers the local provider for "feed" only (README "Notifications").
const notificationModule = {
  resolve: "@medusajs/medusa/notification",
  options: {
    providers: [
      {
        resolve: "@medusajs/medusa/notification-local",
        id: "local",
        // PAYIN_TEST_NOTIFICATION_CHANNELS: a store that lists its own providers, e.g. "email" alone (health-alerts.spec.ts)
        options: { name: "Local Notification Provider", channels: (process.env.PAYIN_TEST_NOTIFICATION_CHANNELS || "feed,email").split(",") },
      },
      // a provider that fails on demand (notification-retry.spec.ts)
      ...(process.env.PAYIN_TEST_FLAKY_NOTIFICATIONS === "true"
        ? [{ resolve: `${__dirname}/notification-flaky`, id: "flaky", options: { channels: ["flaky"] } }]
        : []),
    ],
  },
}
// Shopper notifications switched on from the config (npm run demo); off by default, as in a store.
const notifications =
  process.env.PAYIN_NOTIFICATIONS === "true"
    ? { enabled: true, ...(process.env.PAYIN_ORDER_STATUS_URL ? { orderStatusUrl: process.env.PAYIN_ORDER_STATUS_URL } : {}) }
    : undefined
// The money path's fault points, held by a file (effect-retries.spec.ts, production-topology.spec.ts)
const faultPoints = process.env.PAYIN_TEST_PAUSE_FILE
  ? [{ key: "payin", options: { faultPoints: pauseFilePoints(process.env.PAYIN_TEST_PAUSE_FILE) } }]
  : []
// Test-only plugin folders (the topology spec's probe subscriber), comma-separated absolute paths.
const testPlugins = (process.env.PAYIN_APP_TEST_PLUGINS || "").split(",").filter(Boolean)
// Shorter schedules for the tests (README: plugin options).
const pluginTuning = Object.fromEntries(
  (
    [
      ["reconcileIntervalSeconds", process.env.PAYIN_RECONCILE_INTERVAL_SECONDS],
      ["reconcileAfterSeconds", process.env.PAYIN_RECONCILE_AFTER_SECONDS],
      ["lockTtlSeconds", process.env.PAYIN_LOCK_TTL_SECONDS],
      ["effectRetryLimit", process.env.PAYIN_EFFECT_RETRY_LIMIT],
      ["healthCheckIntervalSeconds", process.env.PAYIN_HEALTH_CHECK_INTERVAL_SECONDS],
      ["alertMinIntervalMinutes", process.env.PAYIN_ALERT_MIN_INTERVAL_MINUTES],
    ] as const
  )
    .filter(([, v]) => v)
    .map(([k, v]) => [k, Number(v)])
)

export default defineConfig(
  withPayin(
    {
      projectConfig: {
        databaseUrl: process.env.DATABASE_URL,
        http: {
          storeCors: process.env.STORE_CORS || "http://localhost:8000,http://localhost:9000",
          adminCors: process.env.ADMIN_CORS || "http://localhost:9000,http://localhost:5173",
          authCors: process.env.AUTH_CORS || "http://localhost:8000,http://localhost:9000,http://localhost:5173",
          jwtSecret: process.env.JWT_SECRET || "payin-dev-jwt-secret",
          cookieSecret: process.env.COOKIE_SECRET || "payin-dev-cookie-secret",
        },
        // Plain-http admin login for a production build on localhost (see README: demo).
        ...(insecureCookie ? { cookieOptions: { secure: false } } : {}),
      },
      admin: {
        disable: process.env.MEDUSA_ADMIN_DISABLE === "true",
      },
      ...(redisUrl ? { featureFlags: { caching: true } } : {}),
      plugins: testPlugins.map((resolve) => ({ resolve, options: {} })),
      modules: [...sharedModules, notificationModule, ...faultPoints],
    },
    {
      source: "./src",
      ...pluginTuning,
      providers: [
        {
          id: "default",
          apiKey: process.env.PAYIN_API_KEY || "sandbox-demo-api-key",
          baseUrl: process.env.PAYIN_BASE_URL || "http://127.0.0.1:4010",
          ...(process.env.PAYIN_TIMEOUT_MS ? { timeoutMs: Number(process.env.PAYIN_TIMEOUT_MS) } : {}),
          // the demo storefront's origin (npm run demo sets it); the Payment Page may send shoppers back there
          allowedRedirectOrigins: (process.env.PAYIN_DEMO_STOREFRONT_URL || "http://localhost:8000").split(","),
          manualRefunds: process.env.PAYIN_MANUAL_REFUNDS === "true",
          ...(notifications ? { notifications } : {}),
        },
        // A second merchant account (the integration tests use one; PAYIN_SECOND_* variables)
        ...(process.env.PAYIN_SECOND_API_KEY ? [{ id: "second" }] : []),
      ],
    }
  )
)
