import type { Transaction } from "../client/schemas"

/** One answer of a pay-in lookup (`GET /payment/trading/{id}` or `/external/{id}`) that reached the merchant. */
export interface LookupLogEntry {
  transactionId: string
  /** Which lookup: by the service's id or by `extra.externalTransactionId`. */
  by: "id" | "external"
  /** What the answer said. */
  status: string
  fiatAmount: string
  fiatCurrency: string
  /** When the answer was sent (sandbox clock, ISO). */
  time: string
}

export const LOOKUP_LOG_LIMIT = 100_000

/**
 * What the service told the merchant through lookups, kept like the webhook delivery log: a test
 * (the soak's auditor) judges the store by what it could know, callbacks and lookups alike.
 */
export class LookupLog {
  private entries: LookupLogEntry[] = []

  record(tx: Transaction, by: LookupLogEntry["by"], now: number): void {
    this.entries.push({ transactionId: tx.id, by, status: tx.status, fiatAmount: tx.fiatAmount, fiatCurrency: tx.fiatCurrency, time: new Date(now).toISOString() })
    if (this.entries.length > LOOKUP_LOG_LIMIT) this.entries.splice(0, this.entries.length - LOOKUP_LOG_LIMIT)
  }

  list(): LookupLogEntry[] {
    return this.entries
  }

  clear(): void {
    this.entries = []
  }
}
