import { type Decimal, add, parseDecimal, toPlain } from "../../money"

/**
 * Medusa's own payment records, read through the payment module's services (the provider lives
 * in that module and gets them in its cradle): a session's payment collection, and the captures
 * of the payment being captured.
 */

type Cradle = Record<string, unknown>

/**
 * The payment collection of a session, read through the payment module's own session service:
 * also for sessions Medusa creates itself, e.g. when completion's compensation replaces one,
 * where no store request carried the collection id.
 */
export async function collectionOf(cradle: Cradle, sessionId: string): Promise<string | null> {
  try {
    const sessions = cradle.paymentSessionService as
      | { retrieve(id: string, config: { select: string[] }): Promise<{ payment_collection_id?: string }> }
      | undefined
    return (await sessions?.retrieve(sessionId, { select: ["id", "payment_collection_id"] }))?.payment_collection_id ?? null
  } catch {
    return null
  }
}

/**
 * The total of the captures of the payment Medusa is capturing, the new one (its id is the
 * idempotency key Medusa passes) included; null when that capture cannot be found (or an amount
 * is not a number). Read through the payment module's own capture service.
 */
export async function capturedWith(cradle: Cradle, captureId: string | undefined): Promise<string | null> {
  const captures = cradle.captureService as
    | {
        retrieve(id: string, config: { select: string[] }): Promise<{ payment_id?: string }>
        list(filters: Record<string, unknown>, config: { select: string[] }): Promise<{ raw_amount?: unknown; amount: unknown }[]>
      }
    | undefined
  if (!captureId || !captures) return null
  const paymentId = (await captures.retrieve(captureId, { select: ["id", "payment_id"] }).catch(() => null))?.payment_id
  if (!paymentId) return null
  const all = await captures.list({ payment_id: paymentId }, { select: ["id", "amount", "raw_amount"] })
  let total: Decimal | null = { units: BigInt(0), scale: 0 }
  for (const capture of all) {
    const amount = parseDecimal(capture.raw_amount ?? capture.amount)
    total = amount && total ? add(total, amount) : null
  }
  return total && toPlain(total)
}
