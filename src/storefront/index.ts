export { FINAL_SHOPPER_STATES } from "./types"
export type {
  PayinBankOption,
  PayinBanksResponse,
  PayinOrderView,
  PayinRequisiteView,
  ShopperState,
  PayinStatusResponse,
  PayinStatusView,
  PayinStoreError,
} from "./types"
export { formatAmount, formatDateTime, formatRequisite, copyValue, requisiteKind, type RequisiteKind } from "./format"
export { timeLeft, clockOffset, formatDuration, startCountdown, type TimeLeft, type CountdownOptions } from "./countdown"
export { pollPayinStatus, type PayinPollOptions, type PayinPoller, type PayinStatusWait } from "./poll"
export { paymentLinks, qrPayload, safeHttpsUrl, safePaymentPageUrl, type PayinLinks } from "./links"
export { qrSvg, type QrSvg } from "./qr"
export { fromSessionData, isPayinProvider } from "./session"
export {
  createPayinStoreClient,
  PayinStoreApiError,
  type PayinStoreClient,
  type PayinMedusaSdk,
  type PayinStoreClientOptions,
  type PayinStoreRequest,
  type PayinStatusQuery,
  type PayinBanksQuery,
  type PayinPayAgainBody,
  type PayinPayAgainResult,
  type PayinStoreRequestInit,
} from "./store-client"
export { payinMessages, getMessages, stateText, requisiteLabels, type Messages, type PayinLocale } from "./messages"
export { copyText } from "./clipboard"
export { payinErrorOf, type PayinError } from "./errors"
export {
  payinMethodsFor,
  payinOffered,
  payinReturnUrl,
  defaultPayinReturnUrl,
  payinSessionData,
  payinSessionMatches,
  payinOrderOutcome,
  type PayinChoiceValue,
  type PayinSessionData,
  type PayinOrderOutcome,
} from "./checkout"
export { payinReturnOrderId } from "./return"
