// A test-only notification provider for the "flaky" channel (registered by the test app's config
// when PAYIN_TEST_FLAKY_NOTIFICATIONS=true): each order's first `flakyNotifications.failFirst`
// attempts fail, later ones send; every attempt and every message sent is remembered with its
// order, so a spec counts its own order's attempts (a previous test's late event cannot skew it).
// The specs run Medusa in their own process (inApp), so they read and set the same object.
import { AbstractNotificationProviderService, ModuleProvider, Modules } from "@medusajs/framework/utils"

type Sent = { to: string; template: string; order_id: unknown }

export const flakyNotifications: { failFirst: number; attempted: Sent[]; sent: Sent[] } = ((globalThis as any).__payinFlakyNotifications ??= {
  failFirst: 0,
  attempted: [],
  sent: [],
})

class FlakyNotificationService extends AbstractNotificationProviderService {
  static override identifier = "payin-test-flaky"

  constructor() {
    super()
  }

  override async send(notification: { to: string; template: string; data?: Record<string, unknown> | null }): Promise<{ id: string }> {
    const attempt = { to: notification.to, template: notification.template, order_id: notification.data?.order_id }
    flakyNotifications.attempted.push(attempt)
    if (flakyNotifications.attempted.filter((a) => a.order_id === attempt.order_id).length <= flakyNotifications.failFirst) {
      throw new Error("the test provider is down")
    }
    flakyNotifications.sent.push(attempt)
    return { id: `flaky_${flakyNotifications.sent.length}` }
  }
}

export default ModuleProvider(Modules.NOTIFICATION, { services: [FlakyNotificationService] })
