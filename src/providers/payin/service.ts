import {
  AuthorizePaymentInput,
  AuthorizePaymentOutput,
  CancelPaymentInput,
  CancelPaymentOutput,
  CapturePaymentInput,
  CapturePaymentOutput,
  DeletePaymentInput,
  DeletePaymentOutput,
  GetPaymentStatusInput,
  GetPaymentStatusOutput,
  InitiatePaymentInput,
  InitiatePaymentOutput,
  Logger,
  ProviderWebhookPayload,
  RefundPaymentInput,
  RefundPaymentOutput,
  RetrievePaymentInput,
  RetrievePaymentOutput,
  UpdatePaymentInput,
  UpdatePaymentOutput,
  WebhookActionResult,
} from "@medusajs/framework/types"
import { AbstractPaymentProvider, MedusaError, PaymentActions } from "@medusajs/framework/utils"
import { PAYIN_MODULE } from "../../modules/payin/key"
import type { Transaction } from "../../client/schemas"
import { capturableAmount, createdMismatch, gt, notCapturableReason, parseDecimal, sameAmount, sessionAmount, toPlain } from "../../money"
import { PayinProviderOptions, PayinProviderOptionsInput } from "../../modules/payin/settings/options"
import { parseProviderOptions } from "../../modules/payin/settings/parse"
import type PayinModuleService from "../../modules/payin/service"
import type { LedgerRow } from "../../modules/payin/service"
import { PAYIN_PROVIDER_IDENTIFIER, payinProviderId } from "../../provider-id"
import { LEDGER_ONLY_STATUSES } from "../../status"
import { capturedWith, sessionOf } from "../../medusa"
import { type AskedSession, authorizeAnswer } from "./answer"
import { heldBooking } from "./held-booking"
import { payinError } from "./payin-error"
import { buildPayinRequest, redact, toMedusaError } from "./request"
import { PayinSessionData, toSessionData } from "./session-data"
import {
  type CreationContext,
  lookUpCreation,
  recordCreationFailure,
  refuseOverCreationCap,
  restoreOwnPayin,
  reuseLivePayin,
  takeLatePayment,
} from "./creation"
import { type WantedPayin, paidForThisCart } from "./session-reuse"
import { CLIENT_CONTEXT_KEY, NO_PROVIDER_KEYS, PROVIDER_KEYS, clientContextOf, parseStorefrontData } from "./storefront-data"

type Data = Record<string, unknown>

export class PayinProviderService extends AbstractPaymentProvider<PayinProviderOptionsInput> {
  static override identifier = PAYIN_PROVIDER_IDENTIFIER

  protected readonly options_: PayinProviderOptions
  protected readonly cradle_: Record<string, unknown>

  static override validateOptions(options: Record<string, unknown>): void {
    parseProviderOptions(options as PayinProviderOptionsInput)
  }

  constructor(cradle: Record<string, unknown>, options: PayinProviderOptionsInput) {
    super(cradle, options)
    this.cradle_ = cradle
    this.options_ = parseProviderOptions(options)
  }

  get providerId(): string {
    return payinProviderId(this.options_.id)
  }

  protected get payin(): PayinModuleService {
    try {
      return this.cradle_[PAYIN_MODULE] as PayinModuleService
    } catch {
      throw new MedusaError(
        MedusaError.Types.UNEXPECTED_STATE,
        `The payin module is not available to the payment module: register the plugin with withPayin() from ` +
          `"medusa-plugin-payin/config", or add dependencies: ["${PAYIN_MODULE}"] to the payment module's entry`
      )
    }
  }

  protected get logger(): Logger | Console {
    try {
      return (this.cradle_.logger as Logger) ?? console
    } catch {
      return console
    }
  }

  protected async settings(maxAgeMs?: number): Promise<PayinProviderOptions> {
    return (await this.payin.settings.providerOptions(this.options_.id, maxAgeMs)) ?? this.options_
  }

  protected get creation(): CreationContext {
    return { payin: this.payin, instanceId: this.options_.id, providerId: this.providerId, logger: this.logger }
  }

  protected requireConfigured(options: PayinProviderOptions): void {
    if (!options.apiKey || !options.baseUrl) {
      throw payinError(MedusaError.Types.NOT_ALLOWED,
        `Pay-in payments are not configured yet (${this.providerId} has no ${!options.apiKey ? "API key" : "base URL"})`, "payin_not_configured")
    }
  }

  async initiatePayment(input: InitiatePaymentInput): Promise<InitiatePaymentOutput> {
    const data = (input.data ?? {}) as Data
    const sessionId = typeof data.session_id === "string" ? data.session_id : undefined
    if (!sessionId) {
      throw new MedusaError(MedusaError.Types.INVALID_DATA, "A payment session id is required to create a pay-in")
    }
    const options = await this.settings()
    const collectionId = (await sessionOf(this.cradle_, sessionId))?.payment_collection_id ?? clientContextOf(data).payment_collection_id ?? null
    // one check for every session, a copy of the provider's own data included (Medusa re-creating a session it deleted)
    const own = await this.ownCopyRow(data, collectionId)
    const chosen = parseStorefrontData(data, options, { ownCopy: Boolean(own) })
    const siblings = collectionId ? await this.payin.ledger.ofCollections([collectionId]) : []
    const { request, fiat, range, currency } = buildPayinRequest(input, chosen, options, sessionId)
    const asked = { providerId: this.providerId, collectionId, amount: fiat.decimal, currencyCode: input.currency_code.toLowerCase() }
    const late = await takeLatePayment(this.creation, sessionId, siblings, asked, options)
    if (late) {
      return late
    }
    if (siblings.some(paidForThisCart)) {
      // paid already: new requisites would take the money twice
      throw payinError(MedusaError.Types.NOT_ALLOWED,
        "This order is already paid: no new payment details are needed", "payin_already_paid")
    }
    this.requireConfigured(options)

    const wanted: WantedPayin = {
      providerId: this.providerId,
      amount: fiat.decimal,
      currencyCode: input.currency_code.toLowerCase(),
      method: chosen.method ?? null,
      bank: chosen.bank ?? null,
    }
    if (own) {
      return restoreOwnPayin(this.creation, sessionId, own, wanted, options)
    }
    const reused = await reuseLivePayin(this.creation, sessionId, siblings, wanted, options)
    if (reused) {
      return reused
    }
    if (collectionId) {
      await refuseOverCreationCap(this.creation, collectionId, null)
    }

    // recorded before the request is sent: the store knows every pay-in it asked for
    let row: { id: string }
    try {
      row = await this.payin.ledger.open({
        provider_id: this.providerId,
        session_id: sessionId,
        amount: fiat.decimal,
        currency_code: wanted.currencyCode,
        method: chosen.method ?? null,
        bank: chosen.bank ?? null,
        payment_collection_id: collectionId,
        return_urls: {
          ...(chosen.success_url ? { success_url: chosen.success_url } : {}),
          ...(chosen.failure_url ? { failure_url: chosen.failure_url } : {}),
        },
      })
    } catch (error) {
      throw toMedusaError(error, `record the pay-in of ${sessionId}`, this.providerId, this.logger, [options.apiKey])
    }
    if (collectionId) {
      // counted again with this row in: of two concurrent requests at least one sees the other's row
      await refuseOverCreationCap(this.creation, collectionId, row.id)
    }
    let transaction: Transaction
    try {
      transaction = await this.payin.clients.withClient(this.options_.id, (client) => client.createPayIn(request, sessionId))
    } catch (error) {
      await recordCreationFailure(this.creation, row.id, error)
      throw toMedusaError(error, "create the pay-in", this.providerId, this.logger, [options.apiKey])
    }
    const sessionData = toSessionData(transaction, { id: row.id, method: chosen.method }, options.paymentWindowSeconds)
    await this.payin.ledger.recordCreated(row.id, transaction, new Date(sessionData.expires_at))

    const mismatch = createdMismatch({ currency, amount: range ? undefined : fiat.value, range }, transaction)
    if (mismatch) {
      await this.payin.ledger.flag(row.id, "created_mismatch", { reason: mismatch, requested: range ?? fiat.decimal, currency })
      this.logger.error(`payin (${this.providerId}): refused pay-in ${transaction.id} of ${sessionId}: ${mismatch}`)
      throw payinError(MedusaError.Types.NOT_ALLOWED,
        "The payment service assigned a different amount or currency. Please try again or choose another payment method.", "payin_amount_mismatch")
    }

    return {
      id: transaction.id,
      status: "pending",
      // Medusa stores { ...input.data, ...this }: undefined drops the client context; deletePayment reads session_id
      data: { ...NO_PROVIDER_KEYS, ...sessionData, session_id: sessionId, [CLIENT_CONTEXT_KEY]: undefined },
    }
  }

  async updatePayment(input: UpdatePaymentInput): Promise<UpdatePaymentOutput> {
    const data = (input.data ?? {}) as Data
    const row = await this.findRow(data)
    if (row && !sameAmount(sessionAmount(row), input.amount, input.currency_code)) {
      throw payinError(MedusaError.Types.NOT_ALLOWED,
        "The amount of a pay-in cannot change: create a new payment session for the new total", "payin_amount_immutable")
    }
    return { data }
  }

  /** Medusa deletes a collection's old sessions while creating the new one, which may have taken the pay-in over. */
  async deletePayment(input: DeletePaymentInput): Promise<DeletePaymentOutput> {
    const data = (input.data ?? {}) as Data
    const row = await this.findRow(data).catch(() => null)
    if (row) {
      const sessionId = typeof data.session_id === "string" ? data.session_id : null
      // sessions from before their data carried session_id
      const marking = sessionId ? this.payin.ledger.markSessionDeletedIfCurrent(row.id, sessionId) : this.payin.ledger.markSessionDeleted(row.id)
      await Promise.resolve(marking).catch((e: unknown) => this.logger.warn(`payin: could not record deletion of ${row.id}: ${String(e)}`))
    }
    return { data }
  }

  async authorizePayment(input: AuthorizePaymentInput): Promise<AuthorizePaymentOutput> {
    const data = (input.data ?? {}) as Data
    const held = heldBooking(data.session_id, this.providerId)
    if (held) return authorizeAnswer(held.row, held.session, data)
    let row = await this.findRow(data)
    if (row && row.provider_id !== this.providerId) {
      return { status: "error", data: { ...data, error_message: "The pay-in belongs to another payment provider" } }
    }
    if (!row?.service_id && (!row || (LEDGER_ONLY_STATUSES as readonly string[]).includes(row.status))) {
      row = (await lookUpCreation(this.creation, data, row)) ?? row
    }
    if (!row) {
      return { status: "error", data: { ...data, error_message: "The pay-in could not be found" } }
    }
    return authorizeAnswer(row, await this.askedSession(data), data)
  }

  async getPaymentStatus(input: GetPaymentStatusInput): Promise<GetPaymentStatusOutput> {
    const data = (input.data ?? {}) as Data
    const row = await this.findRow(data)
    if (!row || row.provider_id !== this.providerId) {
      return { status: "pending", data }
    }
    return authorizeAnswer(row, await this.askedSession(data), data)
  }

  /** Medusa has written the capture already and deletes it when this throws: captures never exceed what arrived. */
  async capturePayment(input: CapturePaymentInput): Promise<CapturePaymentOutput> {
    const data = (input.data ?? {}) as Data
    const row = heldBooking(data.session_id, this.providerId)?.row ?? (await this.findRow(data))
    if (!row || row.provider_id !== this.providerId || !row.paid_at) {
      throw payinError(MedusaError.Types.NOT_ALLOWED,
        `The pay-in is ${row?.status ?? "unknown"}, not closed: the shopper has not paid yet`, "payin_not_paid")
    }
    const capturable = capturableAmount(row)
    if (capturable === null) {
      throw payinError(MedusaError.Types.NOT_ALLOWED,
        `Nothing of this pay-in can be captured: ${notCapturableReason(row)}`, "payin_not_capturable")
    }
    const total = await capturedWith(this.cradle_, input.context?.idempotency_key)
    if (total === null || gt(total, capturable)) {
      throw payinError(MedusaError.Types.NOT_ALLOWED,
        `Only ${capturable} ${row.currency_code.toUpperCase()} of this pay-in arrived: ` +
          (total === null ? "the capture could not be checked against it" : `captures of ${total} would book more`),
        "payin_capture_exceeds_received")
    }
    return { data: { ...data, payin_status: row.status } }
  }

  /**
   * Throws for a paid pay-in: Medusa's compensations cancel the Payment, and a canceled one is never captured.
   * Answers "canceled" only once the ledger has it: Medusa records the cancel on any answer and retries only a throw.
   */
  async cancelPayment(input: CancelPaymentInput): Promise<CancelPaymentOutput> {
    const data = (input.data ?? {}) as Data
    const row = await this.findRow(data).catch((error: unknown) => {
      throw this.cancelNotRecorded("The pay-in could not be read", error)
    })
    if (row?.paid_at) {
      this.logger.warn(`payin: refused a cancel of ${row.id}: the pay-in is paid (the money arrived)`)
      throw payinError(MedusaError.Types.NOT_ALLOWED,
        "The shopper's money for this pay-in arrived: its payment cannot be canceled. Capture it, or refund it once captured", "payin_paid")
    }
    if (row) {
      await this.payin.ledger.markEndedByStore(row.id, "payment canceled in Medusa").catch((error: unknown) => {
        throw this.cancelNotRecorded(`The cancel of pay-in ${row.id} could not be recorded`, error)
      })
    }
    return { data: { ...data, payin_canceled: true } }
  }

  /** The detail goes to the log (redacted), never into the error Medusa shows. */
  private cancelNotRecorded(what: string, error: unknown): MedusaError {
    const detail = redact(error instanceof Error ? error.message : String(error), [this.options_.apiKey])
    this.logger.error(`payin (${this.providerId}): ${what}: ${detail}`)
    return new MedusaError(MedusaError.Types.UNEXPECTED_STATE, `${what}: the payment was not canceled. Try again`)
  }

  async refundPayment(input: RefundPaymentInput): Promise<RefundPaymentOutput> {
    const data = (input.data ?? {}) as Data
    if (!(await this.settings()).manualRefunds) {
      throw payinError(MedusaError.Types.NOT_ALLOWED,
        "The payment service has no refund operation. Pay the shopper back outside Medusa (for example by bank " +
          "transfer), or enable manualRefunds in the pay-in provider options to record such refunds in Medusa", "payin_refund_unsupported")
    }
    const row = await this.findRow(data)
    if (!row?.order_id) {
      throw payinError(MedusaError.Types.NOT_ALLOWED,
        "No order was placed for this pay-in: a refund is recorded only for a placed order, once the money " +
          "was paid back outside Medusa", "payin_refund_without_order")
    }
    const value = parseDecimal(input.amount)
    if (!value) {
      throw new MedusaError(MedusaError.Types.INVALID_DATA, "The refund amount is not a number")
    }
    const amount = toPlain(value)
    const refund = { amount, at: new Date().toISOString(), mode: "manual" }
    await this.payin.ledger.recordRefund(row.id, refund)
    const refunds = Array.isArray(data.payin_refunds) ? data.payin_refunds : []
    return { data: { ...data, payin_refunds: [...refunds, refund] } }
  }

  async retrievePayment(input: RetrievePaymentInput): Promise<RetrievePaymentOutput> {
    const data = (input.data ?? {}) as Data
    const row = await this.findRow(data)
    return { data: { ...data, ...(row && row.provider_id === this.providerId ? { payin_status: row.status } : {}) } }
  }

  async getWebhookActionAndData(_payload: ProviderWebhookPayload["payload"]): Promise<WebhookActionResult> {
    return { action: PaymentActions.NOT_SUPPORTED }
  }

  private async findRow(data: Data): Promise<LedgerRow | null> {
    const sessionId = typeof data.session_id === "string" ? data.session_id : undefined
    const attached = sessionId ? await this.payin.ledger.findBy("session_id", sessionId) : null
    if (attached) {
      return attached
    }
    const ledgerId = typeof data.payin_ledger_id === "string" ? data.payin_ledger_id : undefined
    return ledgerId ? this.payin.ledger.get(ledgerId) : null
  }

  /** The pay-in of this instance and payment collection whose provider keys `data` carries as the provider wrote them. */
  private async ownCopyRow(data: Data, collectionId: string | null): Promise<LedgerRow | null> {
    if (!PROVIDER_KEYS.some((k) => data[k] !== undefined) || typeof data.payin_ledger_id !== "string" || !collectionId) return null
    const row = await this.payin.ledger.get(data.payin_ledger_id)
    return row && row.provider_id === this.providerId && row.payment_collection_id === collectionId && row.service_id === data.payin_id ? row : null
  }

  private async askedSession(data: Data): Promise<AskedSession | null> {
    return typeof data.session_id === "string" ? sessionOf(this.cradle_, data.session_id) : null
  }
}

export type { PayinSessionData }
export default PayinProviderService
