import type { AroundCall } from "../../../client/calls"
import type { PayinClient } from "../../../client/client"
import { PayinServiceError } from "../../../client/errors"
import { PayinClientPool } from "../../../client/pool"
import type { PayinProviderOptions } from "../settings/options"
import type { SettingsReader } from "../settings/reader"

type ClientOptions = Pick<PayinProviderOptions, "id" | "apiKey" | "baseUrl" | "timeoutMs" | "signRequests">

/**
 * The service's client of each configured instance, from its settings in effect: kept while its
 * key, base URL, timeout and address guard stay, made anew when one changes. `around` is what runs
 * around every call of an instance's client (the module gives its span and the health's counters).
 */
export class ServiceClients {
  private readonly pool = new PayinClientPool()

  constructor(
    private readonly settings: SettingsReader,
    private readonly around: (instanceId: string) => AroundCall | undefined = () => undefined
  ) {}

  async clientFor(id: string): Promise<PayinClient | null> {
    const options = await this.settings.providerOptions(id)
    if (!options?.apiKey || !options.baseUrl) {
      return null
    }
    return this.clientWith(options)
  }

  /** On a 401 the settings are re-read (the key may have been rotated on another process) and the call made once more; every call of a configured instance but the admin's connection test goes through here. */
  async withClient<T>(id: string, call: (client: PayinClient, options: PayinProviderOptions) => Promise<T>): Promise<T> {
    const settings = await this.settings.provider(id)
    const options = settings?.options
    if (!options?.apiKey || !options.baseUrl) {
      throw new PayinServiceError(
        "unauthorized",
        `The provider instance "${id}" has no API key or base URL configured${settings?.error ? ` (${settings.error})` : ""}`
      )
    }
    try {
      return await call(this.clientWith(options), options)
    } catch (error) {
      if (!(error instanceof PayinServiceError) || error.kind !== "unauthorized") throw error
      const fresh = await this.settings.providerOptions(id, 0)
      if (!fresh?.apiKey || !fresh.baseUrl || (fresh.apiKey === options.apiKey && fresh.baseUrl === options.baseUrl)) throw error
      return call(this.clientWith(fresh), fresh)
    }
  }

  private clientWith(options: ClientOptions): PayinClient {
    return this.pool.get({
      id: options.id,
      apiKey: options.apiKey!,
      baseUrl: options.baseUrl!,
      timeoutMs: options.timeoutMs,
      signRequests: options.signRequests,
      // a base URL saved from the admin was checked when saved; its addresses are checked again on every connection
      refusePrivateAddresses: this.settings.guardsAddresses(options.id, options.baseUrl),
      around: this.around(options.id),
    })
  }
}
