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
import { payinError } from "./payin-error"
import { buildPayinRequest, toMedusaError } from "./request"
import { PayinSessionData, toSessionData } from "./session-data"
import {
  type CreationContext,
  lookUpCreation,
  recordCreationFailure,
  refuseOverCreationCap,
  reuseLivePayin,
  takeLatePayment,
} from "./creation"
import type { WantedPayin } from "./session-reuse"
import { CLIENT_CONTEXT_KEY, parseStorefrontData } from "./storefront-data"

type Data = Record<string, unknown>

/**
 * Payment provider for the Merchant Payment Service (`pp_payin_<id>`): the shopper pays by bank
 * transfer to requisites the service assigns; the order waits in `pending_authorization` until the
 * service reports the pay-in `closed` (webhook route or lookup), then Medusa captures it.
 */
export class PayinProviderService extends AbstractPaymentProvider<PayinProviderOptionsInput> {
  static override identifier = PAYIN_PROVIDER_IDENTIFIER

  protected readonly options_: PayinProviderOptions
  protected readonly cradle_: Record<string, unknown>

  /** Fails the boot with a message naming every invalid option (never echoing a value). */
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

  /**
   * The options in effect now: medusa-config with the settings saved from the admin on top
   * (re-read at most every few seconds, at once after a change on this instance).
   */
  protected async settings(maxAgeMs?: number): Promise<PayinProviderOptions> {
    return (await this.payin.settings.providerOptions(this.options_.id, maxAgeMs)) ?? this.options_
  }

  /** What the creation steps (creation.ts) need of this instance. */
  protected get creation(): CreationContext {
    return { payin: this.payin, instanceId: this.options_.id, providerId: this.providerId, logger: this.logger }
  }

  /** Refuses a checkout while the instance has no key or base URL (a clear error, nothing sent). */
  protected requireConfigured(options: PayinProviderOptions): void {
    if (!options.apiKey || !options.baseUrl) {
      throw payinError(MedusaError.Types.NOT_ALLOWED,
        `Pay-in payments are not configured yet (${this.providerId} has no ${!options.apiKey ? "API key" : "base URL"})`, "payin_not_configured")
    }
  }


  // -------------------------------------------------------------------------------------------
  // Session
  // -------------------------------------------------------------------------------------------

  async initiatePayment(input: InitiatePaymentInput): Promise<InitiatePaymentOutput> {
    const data = (input.data ?? {}) as Data
    const sessionId = typeof data.session_id === "string" ? data.session_id : undefined
    if (!sessionId) {
      throw new MedusaError(MedusaError.Types.INVALID_DATA, "A payment session id is required to create a pay-in")
    }
    const options = await this.settings()
    const chosen = parseStorefrontData(data, options)
    const collectionId = (await sessionOf(this.cradle_, sessionId))?.payment_collection_id ?? chosen.client.payment_collection_id ?? null
    const siblings = collectionId ? await this.payin.ledger.ofCollections([collectionId]) : []
    const { request, fiat, range, currency } = buildPayinRequest(input, chosen, options, sessionId)
    const asked = { providerId: this.providerId, collectionId, amount: fiat.decimal, currencyCode: input.currency_code.toLowerCase() }
    const late = await takeLatePayment(this.creation, sessionId, siblings, asked, options)
    if (late) {
      return late
    }
    if (siblings.some((r) => r.paid_at)) {
      // the money for this payment collection arrived already: new requisites would take it twice
      throw payinError(MedusaError.Types.NOT_ALLOWED,
        "This order is already paid: no new payment details are needed", "payin_already_paid")
    }
    this.requireConfigured(options)

    // The same payment asked for again (the storefront re-created the session, the shopper came
    // back to checkout): the live pay-in is shown again, re-attached to this session, instead of
    // holding another trader's requisites.
    const wanted: WantedPayin = {
      providerId: this.providerId,
      amount: fiat.decimal,
      currencyCode: input.currency_code.toLowerCase(),
      method: chosen.method ?? null,
      bank: chosen.bank ?? null,
    }
    const reused = await reuseLivePayin(this.creation, sessionId, siblings, wanted, options)
    if (reused) {
      return reused
    }
    if (collectionId) {
      await refuseOverCreationCap(this.creation, collectionId, null)
    }

    // The ledger row is written before the request is sent: the store knows every pay-in it asked
    // for. Nothing can happen to a new pay-in before the shopper sees its requisites, which only
    // this answer carries.
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
      })
    } catch (error) {
      // without a ledger row the pay-in would be unknown to the store: nothing is asked for
      throw toMedusaError(error, `record the pay-in of ${sessionId}`, this.providerId, this.logger, [options.apiKey])
    }
    if (collectionId) {
      // counted again with this row in: concurrent requests of one cart all see each other's rows
      // by then (at least one of any two does), so a burst cannot get past the cap
      await refuseOverCreationCap(this.creation, collectionId, row.id)
    }
    let transaction: Transaction
    try {
      // a key rotated from the admin on another process: withClient asks once more with it (a 401 created nothing)
      transaction = await this.payin.settings.withClient(this.options_.id, (client) => client.createPayIn(request, sessionId))
    } catch (error) {
      await recordCreationFailure(this.creation, row.id, error)
      throw toMedusaError(error, "create the pay-in", this.providerId, this.logger, [options.apiKey])
    }
    const sessionData = toSessionData(transaction, { id: row.id, method: chosen.method }, options.paymentWindowSeconds)
    await this.payin.ledger.recordCreated(row.id, transaction, new Date(sessionData.expires_at))

    const mismatch = createdMismatch({ currency, amount: range ? undefined : fiat.value, range }, transaction)
    if (mismatch) {
      // never show the shopper requisites for another amount or currency than the order's
      await this.payin.ledger.flag(row.id, "created_mismatch", { reason: mismatch, requested: range ?? fiat.decimal, currency })
      this.logger.error(`payin (${this.providerId}): refused pay-in ${transaction.id} of ${sessionId}: ${mismatch}`)
      throw payinError(MedusaError.Types.NOT_ALLOWED,
        "The payment service assigned a different amount or currency. Please try again or choose another payment method.", "payin_amount_mismatch")
    }

    return {
      id: transaction.id,
      status: "pending",
      // Medusa stores { ...input.data, ...this }: drop the server-captured client context. The
      // session's own id is kept in its data: deletePayment tells by it which session is deleted.
      data: { ...sessionData, session_id: sessionId, [CLIENT_CONTEXT_KEY]: undefined } as Data,
    }
  }

  /** A pay-in's amount cannot change: the same amount keeps the session, another one is refused. */
  async updatePayment(input: UpdatePaymentInput): Promise<UpdatePaymentOutput> {
    const data = (input.data ?? {}) as Data
    const row = await this.findRow(data)
    if (row && !sameAmount(sessionAmount(row), input.amount, input.currency_code)) {
      throw payinError(MedusaError.Types.NOT_ALLOWED,
        "The amount of a pay-in cannot change: create a new payment session for the new total", "payin_amount_immutable")
    }
    return { data }
  }

  /**
   * Medusa deleted the session (cart changed or a new session): the pay-in stays tracked. Medusa
   * deletes the old sessions of a collection while it creates the new one, so the pay-in may have
   * been re-attached to the new session (initiatePayment's reuse): then it is not marked.
   */
  async deletePayment(input: DeletePaymentInput): Promise<DeletePaymentOutput> {
    const data = (input.data ?? {}) as Data
    const row = await this.findRow(data).catch(() => null)
    if (row) {
      const sessionId = typeof data.session_id === "string" ? data.session_id : null
      // sessions created before their data carried session_id: marked as before
      const marking = sessionId ? this.payin.ledger.markSessionDeletedIfCurrent(row.id, sessionId) : this.payin.ledger.markSessionDeleted(row.id)
      await Promise.resolve(marking).catch((e: unknown) => this.logger.warn(`payin: could not record deletion of ${row.id}: ${String(e)}`))
    }
    return { data }
  }

  // -------------------------------------------------------------------------------------------
  // Payment: answered from the ledger, which the webhook route and the lookups keep current
  // -------------------------------------------------------------------------------------------

  /**
   * The session's status, from the ledger when it knows the pay-in (webhooks and reconciliation
   * keep it current: no call to the service on the webhook's path). Only when the ledger has no
   * answer yet (the creation's outcome unknown) is the service asked, and its answer recorded
   * through the ledger's one writer. `authorized` only for a pay-in of this instance recorded paid.
   */
  async authorizePayment(input: AuthorizePaymentInput): Promise<AuthorizePaymentOutput> {
    const data = (input.data ?? {}) as Data
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

  /**
   * Medusa books a capture here, whoever asked for it (the money path, an admin's capture): it
   * succeeds only while all of the payment's captures, this one included, stay within what
   * arrived (capturableAmount). Otherwise it throws and Medusa deletes the capture it had written,
   * so no path can book money that never came, nor book the difference twice.
   */
  async capturePayment(input: CapturePaymentInput): Promise<CapturePaymentOutput> {
    const data = (input.data ?? {}) as Data
    const row = await this.findRow(data)
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
   * The service has no cancel operation: the store stops treating the pay-in as payable. A pay-in
   * whose money arrived is never canceled: this throws, so Medusa keeps its Payment (a rolled-back
   * capture or completion, which cancels it in its compensation, leaves it for the money path to
   * capture; a canceled Payment could never be captured again). Medusa also calls this after a
   * concurrent duplicate authorize lost the race to create the Payment; that authorize fails either way.
   */
  async cancelPayment(input: CancelPaymentInput): Promise<CancelPaymentOutput> {
    const data = (input.data ?? {}) as Data
    const row = await this.findRow(data).catch(() => null)
    if (row?.paid_at) {
      this.logger.warn(`payin: refused a cancel of ${row.id}: the pay-in is paid (the money arrived)`)
      throw payinError(MedusaError.Types.NOT_ALLOWED,
        "The shopper's money for this pay-in arrived: its payment cannot be canceled. Capture it, or refund it once captured", "payin_paid")
    }
    if (row) {
      await this.payin.ledger
        .markEndedByStore(row.id, "payment canceled in Medusa")
        .catch((e: unknown) => this.logger.warn(`payin: could not record cancellation of ${row.id}: ${String(e)}`))
    }
    return { data: { ...data, payin_canceled: true } }
  }

  /**
   * The service has no refund operation; manual-refund mode records a refund made outside. Never
   * for a pay-in without a placed order: Medusa's completion compensation asks for a refund when
   * placing the order failed after payment, and no money moved back then.
   */
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

  /**
   * Webhooks of this service are signed with the API key and go to the plugin's own route
   * (POST /hooks/payin/<id>), which verifies before it acts. Medusa's generic
   * /hooks/payment/payin_<id> route answers 200 without verifying anything, so nothing that
   * arrives there is acted upon.
   */
  async getWebhookActionAndData(_payload: ProviderWebhookPayload["payload"]): Promise<WebhookActionResult> {
    return { action: PaymentActions.NOT_SUPPORTED }
  }

  // -------------------------------------------------------------------------------------------
  // Helpers
  // -------------------------------------------------------------------------------------------

  /**
   * The pay-in a session's or payment's data is about: the one the ledger attaches to its session
   * (`session_id`, which Medusa writes), else the one the provider named in it (`payin_ledger_id`:
   * a Payment whose session was deleted since).
   */
  private async findRow(data: Data): Promise<LedgerRow | null> {
    const sessionId = typeof data.session_id === "string" ? data.session_id : undefined
    const attached = sessionId ? await this.payin.ledger.findBy("session_id", sessionId) : null
    if (attached) {
      return attached
    }
    const ledgerId = typeof data.payin_ledger_id === "string" ? data.payin_ledger_id : undefined
    return ledgerId ? this.payin.ledger.get(ledgerId) : null
  }

  /** The session being authorized, as the payment module holds it (null: it cannot be read). */
  private async askedSession(data: Data): Promise<AskedSession | null> {
    return typeof data.session_id === "string" ? sessionOf(this.cradle_, data.session_id) : null
  }
}

export type { PayinSessionData }
export default PayinProviderService
