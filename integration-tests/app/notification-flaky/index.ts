// A test-only notification provider for the "flaky" channel (registered by the test app's config
// when PAYIN_TEST_FLAKY_NOTIFICATIONS=true): it fails while `flakyNotifications.failuresLeft` is
// above zero, then sends, and remembers what it sent. The specs run Medusa in their own process
// (inApp), so they read and set the same object.
import { AbstractNotificationProviderService, ModuleProvider, Modules } from "@medusajs/framework/utils"

type Sent = { to: string; template: string; order_id: unknown }

export const flakyNotifications: { failuresLeft: number; attempts: number; sent: Sent[] } = ((globalThis as any).__payinFlakyNotifications ??= {
  failuresLeft: 0,
  attempts: 0,
  sent: [],
})

class FlakyNotificationService extends AbstractNotificationProviderService {
  static override identifier = "payin-test-flaky"

  constructor() {
    super()
  }

  override async send(notification: { to: string; template: string; data?: Record<string, unknown> | null }): Promise<{ id: string }> {
    flakyNotifications.attempts++
    if (flakyNotifications.failuresLeft > 0) {
      flakyNotifications.failuresLeft--
      throw new Error("the test provider is down")
    }
    flakyNotifications.sent.push({ to: notification.to, template: notification.template, order_id: notification.data?.order_id })
    return { id: `flaky_${flakyNotifications.sent.length}` }
  }
}

export default ModuleProvider(Modules.NOTIFICATION, { services: [FlakyNotificationService] })
