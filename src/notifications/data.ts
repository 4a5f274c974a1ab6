import { decimal2, sessionAmount } from "../money"
import { paymentLinks, safePaymentPageUrl } from "../storefront/links"
import { fillOrderStatusUrl } from "../modules/payin/settings/order-status-url"

export const NOTIFICATION_KINDS = ["instructions", "paid", "expired"] as const
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number]

/** Exactly one notification per order and kind: the Notification Module's unique idempotency key. */
export function notificationKey(kind: NotificationKind, orderId: string): string {
  return `payin:${kind}:${orderId}`
}

export type NotificationSettings = {
  enabled: boolean
  channel: string
  instructionsTemplate: string
  paidTemplate: string
  expiredTemplate: string
  orderStatusUrl?: string
}

export function templateOf(kind: NotificationKind, settings: NotificationSettings): string {
  return kind === "instructions" ? settings.instructionsTemplate : kind === "paid" ? settings.paidTemplate : settings.expiredTemplate
}

export type NotificationOrder = {
  id: string
  display_id?: number | string | null
  email?: string | null
  status?: string | null
  customer_id?: string | null
  cart_id?: string | null
  shipping_address?: { country_code?: string | null } | null
  billing_address?: { country_code?: string | null } | null
}

export type NotificationPayin = {
  provider_id: string
  service_id?: string | null
  amount?: unknown
  raw_amount?: { value?: unknown } | null
  currency_code: string
  fiat_amount?: string | null
  assigned_amount?: string | null
  fiat_currency?: unknown
  method?: unknown
  bank?: unknown
  requisite?: Record<string, unknown> | null
  payment_page_url?: string | null
  expires_at?: Date | string | null
  paid_at?: Date | string | null
  pay_again_until?: Date | string | null
}

export type PayinNotificationData = {
  kind: NotificationKind
  order_id: string
  display_id: number | string | null
  email: string
  amount: string | null
  currency: string
  paid_amount: string | null
  method: string | null
  bank: string | null
  requisite_number: string | null
  owner_name: string | null
  sbp_number: string | null
  sbp_link: string | null
  payment_page_url: string | null
  expires_at: string | null
  paid_at: string | null
  order_status_url: string | null
  order_canceled: boolean
  pay_again_until: string | null
  provider_id: string
  payin_id: string | null
}

export function orderCountry(order: NotificationOrder): string | null {
  const code = order.shipping_address?.country_code || order.billing_address?.country_code
  return code ? code.toLowerCase() : null
}

export function orderStatusUrl(template: string | undefined | null, order: NotificationOrder): string | null {
  if (!template) return null
  return fillOrderStatusUrl(template, {
    order_id: order.id,
    display_id: order.display_id,
    cart_id: order.cart_id,
    country_code: orderCountry(order),
  })
}

/** Requisites and payment links in `instructions` only: once a pay-in is paid or over, a transfer to them would be a stray payment. */
export function notificationData(
  kind: NotificationKind,
  order: NotificationOrder & { email: string },
  payin: NotificationPayin,
  settings: Pick<NotificationSettings, "orderStatusUrl">
): PayinNotificationData {
  const requisite = payin.requisite ?? null
  const number = text(requisite?.requisites)
  const method = text(payin.method)
  const instructions = kind === "instructions"
  const links = instructions && number ? paymentLinks({ method, requisite: { bank: "", owner_name: "", number, sbp_number: null } }) : {}
  return {
    kind,
    order_id: order.id,
    display_id: order.display_id ?? null,
    email: order.email,
    // what the shopper was asked to transfer (the service's amount: inside a fiatAmountRange it may differ from the order total)
    amount: decimal2(payin.assigned_amount) ?? decimal2(payin.fiat_amount) ?? decimal2(sessionAmount(payin)),
    currency: String(text(payin.fiat_currency) ?? payin.currency_code).toUpperCase(),
    paid_amount: kind === "paid" ? decimal2(payin.fiat_amount) : null,
    method,
    bank: text(payin.bank) ?? text(requisite?.bank),
    requisite_number: instructions ? number : null,
    owner_name: instructions ? text(requisite?.ownerName) : null,
    sbp_number: instructions ? text(requisite?.sbpNumber) : null,
    sbp_link: links.sbpQrUrl ?? null,
    payment_page_url: instructions ? safePaymentPageUrl(payin.payment_page_url) : null,
    expires_at: iso(payin.expires_at),
    paid_at: kind === "paid" ? iso(payin.paid_at) : null,
    order_status_url: orderStatusUrl(settings.orderStatusUrl, order),
    order_canceled: order.status === "canceled",
    pay_again_until: kind === "expired" && order.status !== "canceled" ? iso(payin.pay_again_until) : null,
    provider_id: payin.provider_id,
    payin_id: payin.service_id ?? null,
  }
}

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null
}

function iso(value: unknown): string | null {
  if (value === null || value === undefined || value === "") return null
  const date = value instanceof Date ? value : new Date(value as string)
  return Number.isNaN(date.getTime()) ? null : date.toISOString()
}
