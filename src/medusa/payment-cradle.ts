import type { CaptureDTO, ModulesSdkTypes, PaymentSessionDTO } from "@medusajs/framework/types"
import { parseDecimal, sumAmounts, toPlain } from "../money"

/** The cradle names, as in @medusajs/payment's PaymentModuleService constructor. */
export const PAYMENT_CRADLE = { sessions: "paymentSessionService", captures: "captureService" } as const
type SessionService = Pick<ModulesSdkTypes.IMedusaInternalService<PaymentSessionDTO>, "retrieve">
type CaptureService = Pick<ModulesSdkTypes.IMedusaInternalService<CaptureDTO>, "retrieve" | "list">
export type PaymentCradle = { paymentSessionService?: SessionService; captureService?: CaptureService }

/** An awilix cradle throws on unknown names. */
function serviceOf<K extends keyof PaymentCradle>(cradle: object, key: K): PaymentCradle[K] {
  try {
    return (cradle as PaymentCradle)[key]
  } catch {
    return undefined
  }
}

export type CradleSession = { id: string; amount: string; currency_code: string; payment_collection_id: string | null }

export async function sessionOf(cradle: object, sessionId: string): Promise<CradleSession | null> {
  const sessions = serviceOf(cradle, "paymentSessionService")
  if (!sessions) return null
  try {
    const s = (await sessions.retrieve(sessionId, {
      select: ["id", "amount", "raw_amount", "currency_code", "payment_collection_id"],
    })) as PaymentSessionDTO & { raw_amount?: { value?: string } | null }
    const amount = parseDecimal(s.raw_amount?.value ?? s.amount)
    return amount && { id: s.id, amount: toPlain(amount), currency_code: s.currency_code, payment_collection_id: s.payment_collection_id ?? null }
  } catch {
    return null
  }
}

/** The payment module passes the new Capture's id, written already, as capturePayment's `context.idempotency_key`. */
export async function capturedWith(cradle: object, captureId: string | undefined): Promise<string | null> {
  const captures = serviceOf(cradle, "captureService")
  if (!captureId || !captures) return null
  const capture = (await captures.retrieve(captureId, { select: ["id", "payment_id"] }).catch(() => null)) as (CaptureDTO & { payment_id?: string }) | null
  const paymentId = capture?.payment_id
  if (!paymentId) return null
  const all = (await captures.list({ payment_id: paymentId }, { select: ["id", "amount", "raw_amount"] })) as (CaptureDTO & {
    raw_amount?: unknown
  })[]
  const total = sumAmounts(all.map((capture) => capture.raw_amount ?? capture.amount))
  return total && toPlain(total)
}
