import type { ShopperState } from "./types"
import { requisiteKind } from "./format"
import { appendCode } from "../error-code"

/** Everything the instructions say; override entries with {@link getMessages} or the components' `messages` prop. */
export type Messages = {
  /** Accessible name of the whole block. */
  title: string
  statePending: string
  stateAwaitingPayment: string
  stateInReview: string
  statePaid: string
  stateExpired: string
  stateCanceled: string
  stateFailed: string
  instruction: string
  pendingText: string
  inReviewText: string
  amount: string
  bank: string
  cardNumber: string
  accountNumber: string
  phoneNumber: string
  paymentLink: string
  requisite: string
  sbpPhone: string
  recipient: string
  timeLeft: string
  copy: string
  copied: string
  /** Announced to screen readers after a copy. */
  copiedAnnouncement: string
  copyFailed: string
  /** A copy button's accessible name after a copy, naming what was copied (`what`: the field's label). */
  copiedLabel: (what: string) => string
  copyAmount: string
  copyCardNumber: string
  copyAccountNumber: string
  copyPhoneNumber: string
  copyPaymentLink: string
  copyRequisite: string
  copySbpPhone: string
  /** The countdown reached zero but the service has not decided yet. */
  windowEnded: string
  openPaymentPage: string
  payBySbpQr: string
  sbpQrHint: string
  qrLabel: string
  /** The QR code's text alternative: what it encodes (an SBP payment or a payment link) and the formatted amount, when known. */
  qrAlt: (formattedAmount: string | null, sbp: boolean) => string
  qrHint: string
  openPayLink: string
  openInBankApp: string
  paidTitle: string
  paidText: string
  expiredTitle: string
  expiredText: string
  canceledTitle: string
  canceledText: string
  failedTitle: string
  failedText: string
  loading: string
  loadError: string
  retry: string
  reconnecting: string
  noPayin: string
  paidAmount: (formattedAmount: string) => string
  orderNumber: (displayId: number | string) => string
  /** The countdown in words for screen readers, e.g. "14 minutes 32 seconds left". */
  timeLeftWords: (totalSeconds: number) => string
  bankName: (name: string) => string
  methodName: (method: string) => string
  method: string
  anyBank: string
  anyMethod: string
  placeOrder: string
  payOnPaymentPage: string
  thankYou: string
  orderAwaitingPayment: string
  orderPaid: string
  orderUnpaidTitle: string
  orderUnpaidText: string
  /** Added to `orderUnpaidText` when the order itself was canceled. */
  orderCanceled: string
  payAgain: string
  payAgainUntil: (formattedTime: string) => string
  /** `message` (the server's text) is used for codes without a text here. */
  errorText: (code: string | null, message: string) => string
}

export type PayinLocale = "en" | "ru"

function splitSeconds(total: number): [number, number, number] {
  const s = Number.isFinite(total) ? Math.max(0, Math.floor(total)) : 0
  return [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60]
}

const enPlural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

/** Russian plural forms: 1 минута, 2 минуты, 5 минут (and 11 минут, 21 минута). */
function ruPlural(n: number, one: string, few: string, many: string): string {
  const mod10 = n % 10
  const mod100 = n % 100
  const word = mod10 === 1 && mod100 !== 11 ? one : mod10 >= 2 && mod10 <= 4 && (mod100 < 12 || mod100 > 14) ? few : many
  return `${n} ${word}`
}

function defaultBankName(name: string): string {
  const trimmed = name.trim()
  if (!trimmed || /[A-Z]/.test(trimmed)) return trimmed
  // Short names are abbreviations (vtb, mts), longer ones proper names (sberbank).
  return trimmed.length <= 3 ? trimmed.toUpperCase() : trimmed[0].toUpperCase() + trimmed.slice(1)
}

const EN_METHODS: Record<string, string> = {
  card: "Card number",
  phone_number: "Phone number (SBP)",
  account: "Bank account",
  qr: "SBP QR code",
  link: "Payment link",
  deeplink: "Bank app",
  quasi: "Quasi-cash",
  mobile_comm: "Mobile payment",
}
const RU_METHODS: Record<string, string> = {
  card: "Номер карты",
  phone_number: "Номер телефона (СБП)",
  account: "Банковский счёт",
  qr: "QR-код СБП",
  link: "Ссылка на оплату",
  deeplink: "Приложение банка",
  quasi: "Квази-кэш",
  mobile_comm: "Мобильный платёж",
}
const EN_ERRORS: Record<string, string> = {
  payin_requisites_unavailable: "No payment details are free for this bank and method right now. Pick another bank or method, or try again in a minute.",
  payin_unavailable: "Bank transfer is unavailable right now. Try again in a minute or choose another payment method.",
  payin_not_configured: "Bank transfer is not available in this store yet. Please choose another payment method.",
  payin_already_paid: "This order is already paid.",
  payin_amount_mismatch: "The payment could not be started for this amount. Try again or choose another payment method.",
  payin_too_many_attempts: "Too many attempts to start this payment. Use the payment details you already have, or try again in a few minutes.",
  payin_pay_again_off: "New payment details cannot be issued for this order.",
  payin_grace_over: "The time to get new payment details for this order is over.",
  payin_order_paid: "This order is already paid.",
  payin_order_canceled: "This order was canceled. To buy these items, place a new order.",
  payin_not_this_provider: "This order is paid another way: no bank transfer details can be issued for it.",
  payin_busy: "Your payment details are still being prepared. Try again in a few seconds.",
  payin_store_unavailable: "The store is busy right now. Try again in a few seconds.",
}
const RU_ERRORS: Record<string, string> = {
  payin_requisites_unavailable: "Сейчас нет свободных реквизитов для этого банка и способа. Выберите другой банк или способ или попробуйте через минуту.",
  payin_unavailable: "Оплата переводом сейчас недоступна. Попробуйте через минуту или выберите другой способ оплаты.",
  payin_not_configured: "Оплата переводом в этом магазине пока недоступна. Выберите другой способ оплаты.",
  payin_already_paid: "Этот заказ уже оплачен.",
  payin_amount_mismatch: "Не удалось начать оплату на эту сумму. Попробуйте ещё раз или выберите другой способ оплаты.",
  payin_too_many_attempts: "Слишком много попыток начать оплату. Используйте уже полученные реквизиты или попробуйте через несколько минут.",
  payin_pay_again_off: "Для этого заказа нельзя получить новые реквизиты.",
  payin_grace_over: "Срок, в который можно было получить новые реквизиты для этого заказа, истёк.",
  payin_order_paid: "Этот заказ уже оплачен.",
  payin_order_canceled: "Заказ отменён. Чтобы купить эти товары, оформите новый заказ.",
  payin_not_this_provider: "Этот заказ оплачивается другим способом: реквизиты для перевода по нему получить нельзя.",
  payin_busy: "Реквизиты для оплаты ещё готовятся. Попробуйте через несколько секунд.",
  payin_store_unavailable: "Магазин сейчас занят. Попробуйте через несколько секунд.",
}
const withCodeText = (text: string, code: string | null) => (code ? appendCode(text, code) : text)

const en: Messages = {
  title: "Payment instructions",
  statePending: "Getting your payment details…",
  stateAwaitingPayment: "Awaiting your payment",
  stateInReview: "Your payment is being checked",
  statePaid: "Paid",
  stateExpired: "Not paid: the payment window ended",
  stateCanceled: "Payment canceled",
  stateFailed: "Payment details could not be issued",
  instruction: "Transfer exactly this amount to the details below before the time runs out.",
  pendingText: "The bank is assigning the details to transfer to. This usually takes a few seconds.",
  inReviewText: "The payment service is checking your transfer. This can take a while; there is no need to pay again.",
  amount: "Amount to transfer",
  bank: "Bank",
  cardNumber: "Card number",
  accountNumber: "Account number",
  phoneNumber: "Phone number",
  paymentLink: "Payment link",
  requisite: "Payment details",
  sbpPhone: "Phone number for SBP",
  recipient: "Recipient",
  timeLeft: "Time left to pay",
  copy: "Copy",
  copied: "Copied",
  copiedAnnouncement: "Copied to the clipboard",
  copyFailed: "Could not copy. Select the text and copy it yourself.",
  copiedLabel: (what) => `Copied: ${what}`,
  copyAmount: "Copy amount",
  copyCardNumber: "Copy card number",
  copyAccountNumber: "Copy account number",
  copyPhoneNumber: "Copy phone number",
  copyPaymentLink: "Copy payment link",
  copyRequisite: "Copy payment details",
  copySbpPhone: "Copy SBP phone number",
  windowEnded: "The payment window has ended. Checking the payment status…",
  openPaymentPage: "Open the payment page",
  payBySbpQr: "Pay by SBP QR",
  sbpQrHint: "Scan the code with your bank's app, or on your phone tap the button and choose your bank.",
  qrLabel: "QR code for this payment",
  qrAlt: (amount, sbp) =>
    sbp ? (amount ? `SBP QR code to pay ${amount}` : "SBP QR code for this payment") : amount ? `QR code of the payment link to pay ${amount}` : "QR code for this payment",
  qrHint: "Scan the code with your phone to pay there.",
  openPayLink: "Open the payment link",
  openInBankApp: "Open in the bank app",
  paidTitle: "Payment received",
  paidText: "Thank you! Your payment has arrived.",
  expiredTitle: "The payment window has closed",
  expiredText: "No payment arrived in time. Do not transfer money to these details any more.",
  canceledTitle: "These details are no longer valid",
  canceledText: "This payment was canceled. Do not transfer money to the earlier details.",
  failedTitle: "Payment could not be started",
  failedText: "We could not get payment details. Try again or choose another payment method.",
  loading: "Loading the payment details…",
  loadError: "The payment status could not be loaded.",
  retry: "Try again",
  reconnecting: "Connection problem: retrying…",
  noPayin: "This order is not paid by bank transfer.",
  method: "Method",
  anyBank: "Any bank",
  anyMethod: "Any method",
  placeOrder: "Place order",
  payOnPaymentPage: "Or pay on the payment page now",
  thankYou: "Thank you!",
  orderAwaitingPayment: "Your order was placed and awaits your payment.",
  orderPaid: "Your order was placed and paid.",
  orderUnpaidTitle: "Your order was not paid.",
  orderUnpaidText: "The payment window ended before a payment arrived.",
  orderCanceled: "The order was canceled.",
  payAgain: "Get new payment details",
  payAgainUntil: (time) => `You can get new payment details until ${time}.`,
  paidAmount: (amount) => `Credited: ${amount}`,
  orderNumber: (id) => `Order #${id}`,
  timeLeftWords: (total) => {
    const [h, m, s] = splitSeconds(total)
    const parts = [h ? enPlural(h, "hour") : "", m ? enPlural(m, "minute") : "", s || (!h && !m) ? enPlural(s, "second") : ""]
    return `${parts.filter(Boolean).join(" ")} left`
  },
  bankName: defaultBankName,
  methodName: (method) => EN_METHODS[method] ?? method,
  errorText: (code, message) => withCodeText((code && EN_ERRORS[code]) || message, code),
}

const ru: Messages = {
  title: "Оплата переводом",
  statePending: "Получаем реквизиты для оплаты…",
  stateAwaitingPayment: "Ждём ваш перевод",
  stateInReview: "Платёж проверяется",
  statePaid: "Оплачено",
  stateExpired: "Не оплачено: время на оплату вышло",
  stateCanceled: "Оплата отменена",
  stateFailed: "Не удалось получить реквизиты",
  instruction: "Переведите ровно эту сумму по реквизитам ниже, пока не истекло время.",
  pendingText: "Банк подбирает реквизиты для перевода. Обычно это занимает несколько секунд.",
  inReviewText: "Платёжный сервис проверяет ваш перевод. Это может занять время — платить повторно не нужно.",
  amount: "Сумма перевода",
  bank: "Банк",
  cardNumber: "Номер карты",
  accountNumber: "Номер счёта",
  phoneNumber: "Номер телефона",
  paymentLink: "Ссылка для оплаты",
  requisite: "Реквизиты",
  sbpPhone: "Телефон для перевода по СБП",
  recipient: "Получатель",
  timeLeft: "Осталось времени на оплату",
  copy: "Скопировать",
  copied: "Скопировано",
  copiedAnnouncement: "Скопировано в буфер обмена",
  copyFailed: "Не получилось скопировать. Выделите текст и скопируйте его вручную.",
  copiedLabel: (what) => `Скопировано: ${what}`,
  copyAmount: "Скопировать сумму",
  copyCardNumber: "Скопировать номер карты",
  copyAccountNumber: "Скопировать номер счёта",
  copyPhoneNumber: "Скопировать номер телефона",
  copyPaymentLink: "Скопировать ссылку для оплаты",
  copyRequisite: "Скопировать реквизиты",
  copySbpPhone: "Скопировать телефон для СБП",
  windowEnded: "Время на оплату закончилось. Проверяем, поступил ли платёж…",
  openPaymentPage: "Перейти на страницу оплаты",
  payBySbpQr: "Оплатить по QR-коду СБП",
  sbpQrHint: "Отсканируйте код в приложении банка или, если вы с телефона, нажмите кнопку и выберите свой банк.",
  qrLabel: "QR-код для оплаты",
  qrAlt: (amount, sbp) =>
    sbp ? (amount ? `QR-код СБП для оплаты ${amount}` : "QR-код СБП для оплаты") : amount ? `QR-код ссылки для оплаты ${amount}` : "QR-код для оплаты",
  qrHint: "Наведите камеру телефона на код, чтобы оплатить с него.",
  openPayLink: "Открыть ссылку для оплаты",
  openInBankApp: "Открыть в приложении банка",
  paidTitle: "Оплата получена",
  paidText: "Спасибо! Деньги поступили.",
  expiredTitle: "Время на оплату истекло",
  expiredText: "Перевод не поступил вовремя. Больше не переводите деньги по этим реквизитам.",
  canceledTitle: "Эти реквизиты больше не действуют",
  canceledText: "Платёж отменён. Не переводите деньги по прежним реквизитам.",
  failedTitle: "Не удалось начать оплату",
  failedText: "Мы не смогли получить реквизиты. Попробуйте ещё раз или выберите другой способ оплаты.",
  loading: "Загружаем данные об оплате…",
  loadError: "Не удалось загрузить статус оплаты.",
  retry: "Повторить",
  reconnecting: "Нет связи с магазином, пробуем ещё раз…",
  noPayin: "Этот заказ оплачивается не переводом.",
  method: "Способ",
  anyBank: "Любой банк",
  anyMethod: "Любой способ",
  placeOrder: "Оформить заказ",
  payOnPaymentPage: "Или оплатить сейчас на странице оплаты",
  thankYou: "Спасибо!",
  orderAwaitingPayment: "Заказ оформлен и ждёт оплаты.",
  orderPaid: "Заказ оформлен и оплачен.",
  orderUnpaidTitle: "Заказ не оплачен.",
  orderUnpaidText: "Время на оплату закончилось, а платёж не поступил.",
  orderCanceled: "Заказ отменён.",
  payAgain: "Получить новые реквизиты",
  payAgainUntil: (time) => `Новые реквизиты можно получить до ${time}.`,
  paidAmount: (amount) => `Зачислено: ${amount}`,
  orderNumber: (id) => `Заказ № ${id}`,
  timeLeftWords: (total) => {
    const [h, m, s] = splitSeconds(total)
    const parts = [
      h ? ruPlural(h, "час", "часа", "часов") : "",
      m ? ruPlural(m, "минута", "минуты", "минут") : "",
      s || (!h && !m) ? ruPlural(s, "секунда", "секунды", "секунд") : "",
    ]
    // "До конца оплаты" sidesteps agreeing a verb with the first number (осталась/осталось).
    return `До конца оплаты ${parts.filter(Boolean).join(" ")}`
  },
  bankName: defaultBankName,
  methodName: (method) => RU_METHODS[method] ?? method,
  errorText: (code, message) => withCodeText((code && RU_ERRORS[code]) || message, code),
}

export const payinMessages: Readonly<Record<PayinLocale, Messages>> = { en, ru }

/** Anything starting with "ru" is Russian, the rest English. */
export function getMessages(locale: string = "en", overrides?: Partial<Messages>): Messages {
  const base = locale.toLowerCase().startsWith("ru") ? ru : en
  if (!overrides) return base
  const merged = { ...base }
  for (const [key, value] of Object.entries(overrides)) {
    if (value !== undefined) (merged as Record<string, unknown>)[key] = value
  }
  return merged
}

export function stateText(state: ShopperState, messages: Messages): string {
  switch (state) {
    case "pending":
      return messages.statePending
    case "awaiting_payment":
      return messages.stateAwaitingPayment
    case "in_review":
      return messages.stateInReview
    case "paid":
      return messages.statePaid
    case "expired":
      return messages.stateExpired
    case "canceled":
      return messages.stateCanceled
    case "failed":
      return messages.stateFailed
  }
}

/** Label and copy-button name for a requisite: "Card number" / "Copy card number", by method. */
export function requisiteLabels(number: string, method: string | null | undefined, messages: Messages): { label: string; copyLabel: string } {
  switch (requisiteKind(number, method)) {
    case "card":
      return { label: messages.cardNumber, copyLabel: messages.copyCardNumber }
    case "account":
      return { label: messages.accountNumber, copyLabel: messages.copyAccountNumber }
    case "phone":
      return { label: messages.phoneNumber, copyLabel: messages.copyPhoneNumber }
    case "link":
      return { label: messages.paymentLink, copyLabel: messages.copyPaymentLink }
    default:
      return { label: messages.requisite, copyLabel: messages.copyRequisite }
  }
}
