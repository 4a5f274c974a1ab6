"use client"
// Named re-exports, not `export *`: Next.js refuses `export *` in a client boundary.
export {
  FINAL_SHOPPER_STATES,
  formatAmount,
  formatDateTime,
  formatRequisite,
  copyValue,
  requisiteKind,
  timeLeft,
  clockOffset,
  formatDuration,
  startCountdown,
  pollPayinStatus,
  paymentLinks,
  qrPayload,
  safeHttpsUrl,
  safePaymentPageUrl,
  qrSvg,
  fromSessionData,
  isPayinProvider,
  createPayinStoreClient,
  PayinStoreApiError,
  payinMessages,
  getMessages,
  stateText,
  requisiteLabels,
  copyText,
  payinErrorOf,
  payinMethodsFor,
  payinOffered,
  payinReturnUrl,
  defaultPayinReturnUrl,
  payinSessionData,
  payinSessionMatches,
  payinOrderOutcome,
  payinReturnOrderId,
} from "../index"
export type {
  PayinBankOption,
  PayinBanksResponse,
  PayinOrderView,
  PayinRequisiteView,
  ShopperState,
  PayinStatusResponse,
  PayinStatusView,
  PayinStoreError,
  RequisiteKind,
  TimeLeft,
  CountdownOptions,
  PayinPollOptions,
  PayinPoller,
  PayinLinks,
  QrSvg,
  PayinStoreClient,
  PayinStoreClientOptions,
  PayinStoreRequest,
  PayinStatusQuery,
  PayinBanksQuery,
  PayinPayAgainBody,
  PayinPayAgainResult,
  PayinStoreRequestInit,
  Messages,
  PayinLocale,
  PayinError,
  PayinMedusaSdk,
  PayinChoiceValue,
  PayinSessionData,
  PayinOrderOutcome,
} from "../index"
export { PayinInstructions, type PayinInstructionsProps } from "./instructions"
export { PayinLiveInstructions, type PayinLiveInstructionsProps } from "./live-instructions"
export { PayinPayAgain, usePayinPayAgain, type PayinPayAgainProps, type UsePayinPayAgainResult } from "./pay-again"
export { PAYIN_CSS, PAYIN_THEME } from "./styles"
export { usePayinStatus, type UsePayinStatusOptions, type UsePayinStatusResult } from "./use-payin-status"
export { usePayinChoice, PayinBankMethodSelect, type PayinChoice, type UsePayinChoiceOptions, type PayinBankMethodSelectProps } from "./choice"
export { PayinPaymentButton, type PayinPaymentButtonProps, type PayinButtonRenderProps } from "./payment-button"
export { PayinOrderHeading, type PayinOrderHeadingProps } from "./order-heading"
export { countdownAnnouncement, countdownAnnouncer, type CountdownAnnouncement } from "./announce"
