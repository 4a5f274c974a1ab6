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
import {
  PAYIN_PROVIDER_IDENTIFIER,
  PayinProviderOptions,
  PayinProviderOptionsInput,
  parseProviderOptions,
} from "../../../medusa-plugin.config"

/**
 * Payment provider for the Merchant Payment Service (`pp_payin_<id>`).
 *
 * This release registers, validates its options and is listed by Medusa; it does not create
 * pay-ins yet, so it refuses to start a payment with a clear error instead of pretending.
 */
export class PayinProviderService extends AbstractPaymentProvider<PayinProviderOptionsInput> {
  static override identifier = PAYIN_PROVIDER_IDENTIFIER

  protected readonly options_: PayinProviderOptions

  /** Fails the boot with a message naming every invalid option (never echoing a value). */
  static override validateOptions(options: Record<string, unknown>): void {
    parseProviderOptions(options as PayinProviderOptionsInput)
  }

  constructor(cradle: Record<string, unknown>, options: PayinProviderOptionsInput) {
    super(cradle, options)
    this.options_ = parseProviderOptions(options)
  }

  async initiatePayment(_input: InitiatePaymentInput): Promise<InitiatePaymentOutput> {
    throw new MedusaError(
      MedusaError.Types.NOT_ALLOWED,
      "Pay-in checkout is not available in this version of medusa-plugin-payin"
    )
  }

  async authorizePayment(input: AuthorizePaymentInput): Promise<AuthorizePaymentOutput> {
    // No pay-in can exist (initiatePayment refuses), so nothing can be authorized.
    return { status: "error", data: input.data ?? {} }
  }

  async getPaymentStatus(input: GetPaymentStatusInput): Promise<GetPaymentStatusOutput> {
    return { status: "error", data: input.data ?? {} }
  }

  async capturePayment(input: CapturePaymentInput): Promise<CapturePaymentOutput> {
    return { data: input.data ?? {} }
  }

  async cancelPayment(input: CancelPaymentInput): Promise<CancelPaymentOutput> {
    return { data: input.data ?? {} }
  }

  async deletePayment(input: DeletePaymentInput): Promise<DeletePaymentOutput> {
    return { data: input.data ?? {} }
  }

  async refundPayment(_input: RefundPaymentInput): Promise<RefundPaymentOutput> {
    throw new MedusaError(
      MedusaError.Types.NOT_ALLOWED,
      "The Merchant Payment Service offers no refund operation: refund the shopper outside Medusa"
    )
  }

  async retrievePayment(input: RetrievePaymentInput): Promise<RetrievePaymentOutput> {
    return { data: input.data ?? {} }
  }

  async updatePayment(input: UpdatePaymentInput): Promise<UpdatePaymentOutput> {
    return { data: input.data ?? {} }
  }

  async getWebhookActionAndData(
    _payload: ProviderWebhookPayload["payload"]
  ): Promise<WebhookActionResult> {
    // Webhooks of this service go to the plugin's own route (POST /hooks/payin/<id>), not
    // through Medusa's generic /hooks/payment pipeline.
    return { action: PaymentActions.NOT_SUPPORTED }
  }
}

export default PayinProviderService
