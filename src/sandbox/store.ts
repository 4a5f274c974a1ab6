import { randomUUID } from "crypto"
import type { PayinMethod, PaymentPageConfig, Requisite, Transaction, TransactionStatus } from "../client/schemas"
import type { CurrencyEntry, PooledRequisite, RequisitePools } from "./catalog"
import { ExpiryHeap } from "./heap"
import { cryptoMicroUnits, feeOf, formatCents, parseRate } from "./money"
import { randomInt, type Random } from "./random"
import { nextStatus, type Action } from "./transitions"

/** Merchant fee: 2.5 % of the crypto amount, in the same micro-units. */
export const MERCHANT_FEE_BASIS_POINTS = 250

/** Everything the sandbox keeps about a pay-in; JSON-serialisable as is (persistence). */
export interface TxRecord {
  id: string
  cents: number
  cryptoAmount: string
  merchantFee: string
  currencyRate: string
  type: "pay-in"
  status: TransactionStatus
  bank: string
  fiatCurrency: string
  cryptoCurrency: string
  cryptoNetwork: string
  payoutInvoicesUrl: unknown[]
  disputeMerchantCheckUrl: string | null
  disputeTraderCheckUrl: string | null
  disputeMerchantFiatAmount: string
  disputeTraderFiatAmount: string
  requisite: Requisite & { sbpNumber: string | null }
  method: PayinMethod
  extra: Record<string, unknown>
  paymentPageConfig: PaymentPageConfig | null
  createdAt: number
  expiresAt: number
  updatedAt: number
}

export interface CreateInput {
  /** Fixed amount in cents, or a range in cents to pick from. */
  cents?: number
  range?: { min: number; max: number }
  currency: CurrencyEntry
  bank?: string
  method?: PayinMethod
  extra: Record<string, unknown>
  paymentPageConfig: PaymentPageConfig | null
}

export type CreateResult =
  | { ok: true; record: TxRecord }
  | { ok: false; code: "REQUISITES_UNAVAILABLE" | "DUPLICATE_EXTERNAL_ID"; message: string }

export type ApplyResult =
  | { ok: true; record: TxRecord; from: TransactionStatus }
  | { ok: false; code: "INVALID_TRANSITION"; message: string; record: TxRecord }

export interface ApplyPatch {
  cents?: number
  /** The money arrived in another currency (`pay` with `fiatCurrency`): the currency and its rate. */
  currency?: { fiatCurrency: string; rate: string }
  disputeMerchantCheckUrl?: string
  disputeTraderCheckUrl?: string
  disputeMerchantCents?: number
  disputeTraderCents?: number
}

export type StatusChangeListener = (record: TxRecord, from: TransactionStatus, action: Action) => void

/** Public view of a record: the spec's Transaction, fields in the spec's order. */
export function toTransaction(record: TxRecord, paymentPageUrl: string | null): Transaction {
  const tx: Transaction = {
    id: record.id,
    fiatAmount: formatCents(record.cents),
    cryptoAmount: record.cryptoAmount,
    merchantFee: record.merchantFee,
    currencyRate: record.currencyRate,
    type: record.type,
    status: record.status,
    bank: record.bank,
    fiatCurrency: record.fiatCurrency,
    cryptoCurrency: record.cryptoCurrency,
    cryptoNetwork: record.cryptoNetwork,
    payoutInvoicesUrl: record.payoutInvoicesUrl,
    disputeMerchantCheckUrl: record.disputeMerchantCheckUrl,
    disputeTraderCheckUrl: record.disputeTraderCheckUrl,
    disputeMerchantFiatAmount: record.disputeMerchantFiatAmount,
    disputeTraderFiatAmount: record.disputeTraderFiatAmount,
    requisite: {
      id: record.requisite.id,
      bank: record.requisite.bank,
      ownerName: record.requisite.ownerName,
      sbpNumber: record.requisite.sbpNumber,
      requisites: record.requisite.requisites,
      fiatCurrency: record.requisite.fiatCurrency,
    },
    extra: record.extra,
    createdAt: new Date(record.createdAt).toISOString(),
  }
  if (paymentPageUrl !== null) {
    tx.externalPaymentPageUrl = paymentPageUrl
  }
  return tx
}

/**
 * In-memory transaction store: records by id and by extra.externalTransactionId, the set of
 * (requisite, amount) pairs held by active transactions (requisite exhaustion), and the expiry
 * schedule. Status changes go through `apply`, which notifies the listener (webhooks, persistence).
 */
export class TransactionStore {
  private byId = new Map<string, TxRecord>()
  private byExternal = new Map<string, TxRecord>()
  private held = new Set<string>()
  private expiries = new ExpiryHeap()
  private listener: StatusChangeListener = () => undefined

  constructor(
    private pools: RequisitePools,
    private random: Random
  ) {}

  onStatusChange(listener: StatusChangeListener): void {
    this.listener = listener
  }

  get size(): number {
    return this.byId.size
  }

  get(id: string): TxRecord | undefined {
    return this.byId.get(id)
  }

  getByExternalId(externalId: string): TxRecord | undefined {
    return this.byExternal.get(externalId)
  }

  all(): TxRecord[] {
    return [...this.byId.values()]
  }

  clear(): void {
    this.byId.clear()
    this.byExternal.clear()
    this.held.clear()
    this.expiries.clear()
  }

  create(input: CreateInput, now: number, windowSeconds: number): CreateResult {
    const externalId = typeof input.extra.externalTransactionId === "string" ? input.extra.externalTransactionId : undefined
    if (externalId !== undefined && this.byExternal.has(externalId)) {
      return {
        ok: false,
        code: "DUPLICATE_EXTERNAL_ID",
        message: `a transaction with externalTransactionId "${externalId}" already exists`,
      }
    }
    const pool = this.pools.candidates(input.currency.fiatCurrency, input.bank, input.method)
    if (pool.length === 0) {
      return {
        ok: false,
        code: "REQUISITES_UNAVAILABLE",
        message: `no requisites serve ${input.currency.fiatCurrency}${input.bank ? ` at bank ${input.bank}` : ""}${
          input.method ? ` with method ${input.method}` : ""
        }`,
      }
    }
    const picked = input.range ? this.pickInRange(pool, input.range) : this.pickFree(pool, input.cents!)
    if (!picked) {
      return {
        ok: false,
        code: "REQUISITES_UNAVAILABLE",
        message: input.range
          ? "requisites are temporarily unavailable for every amount tried in fiatAmountRange"
          : "requisites are temporarily unavailable for this amount: every matching requisite already has an active transaction with it; retry later or use fiatAmountRange",
      }
    }
    const [pooled, cents] = picked
    const crypto = cryptoMicroUnits(cents, parseRate(input.currency.rate))
    const record: TxRecord = {
      id: randomUUID(),
      cents,
      cryptoAmount: crypto.toString(),
      merchantFee: feeOf(crypto, MERCHANT_FEE_BASIS_POINTS).toString(),
      currencyRate: input.currency.rate,
      type: "pay-in",
      status: "active",
      bank: pooled.requisite.bank,
      fiatCurrency: input.currency.fiatCurrency,
      cryptoCurrency: input.currency.cryptoCurrency,
      cryptoNetwork: input.currency.cryptoNetwork,
      payoutInvoicesUrl: [],
      disputeMerchantCheckUrl: null,
      disputeTraderCheckUrl: null,
      disputeMerchantFiatAmount: "0.00",
      disputeTraderFiatAmount: "0.00",
      requisite: pooled.requisite,
      method: pooled.method,
      extra: input.extra,
      paymentPageConfig: input.paymentPageConfig,
      createdAt: now,
      expiresAt: now + windowSeconds * 1000,
      updatedAt: now,
    }
    this.insert(record)
    return { ok: true, record }
  }

  insert(record: TxRecord): void {
    this.byId.set(record.id, record)
    const externalId = record.extra.externalTransactionId
    if (typeof externalId === "string") {
      this.byExternal.set(externalId, record)
    }
    if (record.status === "active") {
      this.held.add(holdKey(record.requisite.id, record.cents))
      this.expiries.push(record.expiresAt, record.id)
    }
  }

  apply(record: TxRecord, action: Action, now: number, patch: ApplyPatch = {}): ApplyResult {
    const from = record.status
    const to = nextStatus(from, action)
    if (to === null) {
      return {
        ok: false,
        code: "INVALID_TRANSITION",
        message: `action "${action}" is not allowed for a transaction in status "${from}"`,
        record,
      }
    }
    if (from === "active") {
      this.held.delete(holdKey(record.requisite.id, record.cents))
    }
    if (patch.currency !== undefined) {
      record.fiatCurrency = patch.currency.fiatCurrency
      record.currencyRate = patch.currency.rate
    }
    if (patch.cents !== undefined || patch.currency !== undefined) {
      if (patch.cents !== undefined) record.cents = patch.cents
      const crypto = cryptoMicroUnits(record.cents, parseRate(record.currencyRate))
      record.cryptoAmount = crypto.toString()
      record.merchantFee = feeOf(crypto, MERCHANT_FEE_BASIS_POINTS).toString()
    }
    if (patch.disputeMerchantCheckUrl !== undefined) record.disputeMerchantCheckUrl = patch.disputeMerchantCheckUrl
    if (patch.disputeTraderCheckUrl !== undefined) record.disputeTraderCheckUrl = patch.disputeTraderCheckUrl
    if (patch.disputeMerchantCents !== undefined) record.disputeMerchantFiatAmount = formatCents(patch.disputeMerchantCents)
    if (patch.disputeTraderCents !== undefined) record.disputeTraderFiatAmount = formatCents(patch.disputeTraderCents)
    record.status = to
    record.updatedAt = now
    this.listener(record, from, action)
    return { ok: true, record, from }
  }

  /** Cancels every active transaction whose window has ended by `now`. Cheap when none has. */
  sweep(now: number): number {
    let expired = 0
    for (let top = this.expiries.peek(); top && top.at <= now; top = this.expiries.peek()) {
      this.expiries.pop()
      const record = this.byId.get(top.id)
      if (record && record.status === "active" && record.expiresAt === top.at) {
        this.apply(record, "expire", now)
        expired++
      }
    }
    return expired
  }

  private pickFree(pool: PooledRequisite[], cents: number): [PooledRequisite, number] | undefined {
    const start = randomInt(this.random, 0, pool.length - 1)
    for (let i = 0; i < pool.length; i++) {
      const candidate = pool[(start + i) % pool.length]
      if (!this.held.has(holdKey(candidate.requisite.id, cents))) {
        return [candidate, cents]
      }
    }
    return undefined
  }

  private pickInRange(pool: PooledRequisite[], range: { min: number; max: number }): [PooledRequisite, number] | undefined {
    const span = range.max - range.min + 1
    // A few random amounts first (what a shopper would see), then a bounded scan from a random start.
    for (let i = 0; i < Math.min(span, 16); i++) {
      const found = this.pickFree(pool, randomInt(this.random, range.min, range.max))
      if (found) return found
    }
    const start = randomInt(this.random, 0, span - 1)
    for (let i = 0; i < Math.min(span, 4096); i++) {
      const found = this.pickFree(pool, range.min + ((start + i) % span))
      if (found) return found
    }
    return undefined
  }
}

function holdKey(requisiteId: string, cents: number): string {
  return `${requisiteId}|${cents}`
}
