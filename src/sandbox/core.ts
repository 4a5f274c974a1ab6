import { timingSafeEqual } from "crypto"
import type { z } from "zod"
import { PayinRequestSchema, type PayOutRequest, type Transaction } from "../client/schemas"
import { sign } from "../client/signature"
import { findBank, findCurrency, RequisitePools } from "./catalog"
import { SandboxClock } from "./clock"
import { FaultInjector } from "./faults"
import { applyMerchantPatch, defaultMerchant, type MerchantPatch, type MerchantSettings } from "./merchant"
import { centsFromNumber } from "./money"
import { createPayOut, type PayOutRecord } from "./payouts"
import { LookupLog } from "./lookups"
import { NextPayInQueue } from "./next-payin"
import { loadState, saveState, type PersistedState } from "./persistence"
import { createRandom, type Random } from "./random"
import { TransactionStore, toTransaction, type ApplyPatch, type ApplyResult, type CreateResult, type TxRecord } from "./store"
import type { Action } from "./transitions"
import { WebhookDispatcher } from "./webhooks"
import { Whitelist } from "./whitelist"

export interface CoreOptions {
  merchant: MerchantPatch
  dataFile?: string
  seed?: number
}

function keyBytes(value: string): Buffer {
  return Buffer.from(value, "utf8")
}

/** The emulated service, independent of HTTP; app.ts is a thin Hono layer over it. */
export class SandboxCore {
  readonly clock: SandboxClock
  readonly random: Random
  readonly store: TransactionStore
  readonly webhooks: WebhookDispatcher
  readonly faults: FaultInjector
  readonly payouts = new Map<string, PayOutRecord>()
  /** Overrides of the next created pay-ins (`/_sandbox/next-payin`); in memory only. */
  readonly nextPayIns = new NextPayInQueue()
  /** Pay-in lookups answered to the merchant (`/_sandbox/lookups`); in memory only. */
  readonly lookups = new LookupLog()
  publicUrl = "http://127.0.0.1"
  private settings: MerchantSettings
  private whitelist: Whitelist
  private apiKeyBuffer: Buffer
  private pools: RequisitePools
  private persistTimer: NodeJS.Timeout | null = null
  private readonly dataFile?: string

  constructor(options: CoreOptions) {
    this.dataFile = options.dataFile
    const saved: PersistedState | null = options.dataFile ? loadState(options.dataFile) : null
    // Persisted merchant settings first, then what the caller passed explicitly.
    this.settings = applyMerchantPatch(saved ? { ...defaultMerchant(), ...saved.merchant } : defaultMerchant(), options.merchant)
    this.whitelist = new Whitelist(this.settings.whitelist)
    this.apiKeyBuffer = keyBytes(this.settings.apiKey)
    this.clock = new SandboxClock(saved?.clockOffsetMs ?? 0)
    this.random = createRandom(options.seed)
    this.pools = new RequisitePools(this.settings.requisitesPerMethod)
    this.store = new TransactionStore(this.pools, this.random)
    this.faults = new FaultInjector(this.random)
    this.webhooks = new WebhookDispatcher(
      () => ({
        mode: this.settings.webhookMode,
        delayMs: this.settings.webhookDelayMs,
        shuffleWindowMs: this.settings.webhookShuffleWindowMs,
        retryDelaysMs: this.settings.webhookRetryDelaysMs,
        timeoutMs: this.settings.webhookTimeoutMs,
      }),
      () => this.clock.now(),
      this.random
    )
    if (saved) {
      for (const record of saved.transactions) this.store.insert(record)
      for (const payout of saved.payouts ?? []) this.payouts.set(payout.id, payout)
    }
    this.store.onStatusChange((record) => {
      this.sendWebhook(record, "status_change")
      this.markDirty()
    })
  }

  get merchant(): MerchantSettings {
    return this.settings
  }

  updateMerchant(patch: MerchantPatch): MerchantSettings {
    const next = applyMerchantPatch(this.settings, patch)
    const whitelist = new Whitelist(next.whitelist)
    this.settings = next
    this.whitelist = whitelist
    this.apiKeyBuffer = keyBytes(next.apiKey)
    this.pools.setPerMethod(next.requisitesPerMethod)
    this.markDirty()
    return next
  }

  /** Constant-time API key check (only the key's length can leak, as usual). */
  checkApiKey(given: string | undefined): boolean {
    if (!given) return false
    const bytes = keyBytes(given)
    return bytes.length === this.apiKeyBuffer.length && timingSafeEqual(bytes, this.apiKeyBuffer)
  }

  allowsAddress(remoteAddress: string | undefined): boolean {
    return this.whitelist.allows(remoteAddress)
  }

  /** Cancels transactions whose payment window has ended (called on every request and by a timer). */
  sweep(): void {
    this.store.sweep(this.clock.now())
  }

  paymentPageUrl(id: string): string {
    return `${this.publicUrl}/pay/${id}`
  }

  view(record: TxRecord): Transaction {
    return toTransaction(record, this.settings.externalPaymentPageUrl ? this.paymentPageUrl(record.id) : null)
  }

  /** A queued next-pay-in override is consumed only when the creation succeeds. */
  createPayIn(body: z.infer<typeof PayinRequestSchema>):
    | CreateResult
    | { ok: false; code: "VALIDATION_ERROR"; message: string; errors: { field: string; message: string }[] } {
    const currency = findCurrency(body.fiatCurrency)
    if (!currency) {
      return {
        ok: false,
        code: "VALIDATION_ERROR",
        message: `fiatCurrency ${body.fiatCurrency.toUpperCase()} is not served to this merchant`,
        errors: [{ field: "fiatCurrency", message: "unsupported currency (see GET /payment/trading/currency)" }],
      }
    }
    let bank: string | undefined
    let method = body.method
    if (body.bank !== undefined) {
      const entry = findBank(body.bank)
      if (!entry) {
        return {
          ok: false,
          code: "VALIDATION_ERROR",
          message: `bank "${body.bank}" is unknown`,
          errors: [{ field: "bank", message: "unknown bank (see GET /payment/trading/banks)" }],
        }
      }
      bank = entry.name
    }
    const override = this.nextPayIns.peek()
    let cents = body.fiatAmount !== undefined ? centsFromNumber(body.fiatAmount) : undefined
    let range = body.fiatAmountRange
      ? { min: centsFromNumber(body.fiatAmountRange.min), max: centsFromNumber(body.fiatAmountRange.max) }
      : undefined
    let created = currency
    if (override?.cents !== undefined) {
      cents = override.cents
      range = undefined
    }
    if (override?.fiatCurrency !== undefined && override.fiatCurrency !== currency.fiatCurrency) {
      created = findCurrency(override.fiatCurrency)!
      // The requested bank / method may not serve the overriding currency: drop the bank, then
      // the method, rather than failing a request the service would have accepted.
      if (bank !== undefined && this.pools.candidates(created.fiatCurrency, bank, method).length === 0) bank = undefined
      if (method !== undefined && this.pools.candidates(created.fiatCurrency, bank, method).length === 0) method = undefined
    }
    const result = this.store.create(
      {
        cents,
        range,
        currency: created,
        bank,
        method,
        extra: (body.extra ?? {}) as Record<string, unknown>,
        paymentPageConfig: body.paymentPageConfig ?? null,
      },
      this.clock.now(),
      this.settings.paymentWindowSeconds
    )
    if (result.ok) {
      if (override) this.nextPayIns.consume()
      this.markDirty()
    }
    return result
  }

  act(record: TxRecord, action: Action, patch?: ApplyPatch): ApplyResult {
    return this.store.apply(record, action, this.clock.now(), patch)
  }

  repeatWebhook(record: TxRecord, count: number): boolean {
    if (!this.settings.webhookUrl) return false
    for (let i = 0; i < count; i++) this.sendWebhook(record, "repeat")
    return true
  }

  private sendWebhook(record: TxRecord, reason: "status_change" | "repeat"): void {
    const url = this.settings.webhookUrl
    if (!url) return
    const body = JSON.stringify(this.view(record))
    this.webhooks.enqueue({
      transactionId: record.id,
      status: record.status,
      reason,
      url,
      body,
      signature: sign(body, this.settings.apiKey),
    })
  }

  createPayOut(body: PayOutRequest): PayOutRecord {
    const payout = createPayOut(body, this.clock.now())
    this.payouts.set(payout.id, payout)
    this.markDirty()
    return payout
  }

  advanceClock(seconds: number): void {
    this.clock.advance(seconds)
    this.markDirty()
    this.sweep()
  }

  /** Forgets transactions, pay-outs, the delivery and lookup logs, faults and next-pay-in overrides; merchant settings stay. */
  reset(): void {
    this.store.clear()
    this.nextPayIns.clear()
    this.payouts.clear()
    this.webhooks.clearLog()
    this.lookups.clear()
    this.faults.clear()
    this.markDirty()
  }

  snapshot(): PersistedState {
    return {
      version: 1,
      savedAt: new Date().toISOString(),
      clockOffsetMs: this.clock.offsetMs,
      merchant: this.settings,
      transactions: this.store.all(),
      payouts: [...this.payouts.values()],
    }
  }

  private markDirty(): void {
    if (!this.dataFile || this.persistTimer) return
    this.persistTimer = setTimeout(() => {
      try {
        this.persist()
      } catch (err) {
        process.stderr.write(`payin-sandbox: could not write ${this.dataFile}: ${(err as Error).message}\n`)
      }
    }, 50)
  }

  persist(): void {
    if (this.persistTimer) clearTimeout(this.persistTimer)
    this.persistTimer = null
    if (this.dataFile) saveState(this.dataFile, this.snapshot())
  }

  async close(): Promise<void> {
    this.persist()
    await this.webhooks.close()
  }
}
