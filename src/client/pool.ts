import { createHash } from "crypto"
import { PayinClient, type PayinClientOptions } from "./client"

export type PooledClientOptions = Pick<PayinClientOptions, "apiKey" | "baseUrl" | "timeoutMs" | "signRequests" | "refusePrivateAddresses" | "around"> & {
  id: string
}

/** A new key, URL, timeout or address guard makes a new client; otherwise its connections are reused. */
export class PayinClientPool {
  private readonly clients = new Map<string, { signature: string; client: PayinClient }>()

  get(options: PooledClientOptions): PayinClient {
    const signature = createHash("sha256")
      .update([options.apiKey, options.baseUrl, options.timeoutMs, options.signRequests, options.refusePrivateAddresses].join("\n"))
      .digest("hex")
    const cached = this.clients.get(options.id)
    if (cached?.signature === signature) {
      return cached.client
    }
    const { id: _id, ...made } = options
    const client = new PayinClient(made)
    this.clients.set(options.id, { signature, client })
    return client
  }
}
