import { randomUUID } from "crypto"
import type { PayOutRequest } from "../client/schemas"
import { centsFromNumber, formatCents } from "./money"

/**
 * Pay-outs: the spec names the operation and nothing else, so the sandbox only accepts and
 * records them. A pay-out never changes status and sends no webhook.
 */
export interface PayOutRecord {
  id: string
  type: "pay-out"
  status: "accepted"
  fiatAmount: string
  fiatCurrency: string
  bank: string | null
  requisites: string
  ownerName: string | null
  extra: Record<string, unknown>
  createdAt: string
}

export function createPayOut(body: PayOutRequest, now: number): PayOutRecord {
  return {
    id: randomUUID(),
    type: "pay-out",
    status: "accepted",
    fiatAmount: formatCents(centsFromNumber(body.fiatAmount)),
    fiatCurrency: body.fiatCurrency.toUpperCase(),
    bank: body.bank ?? null,
    requisites: body.requisites,
    ownerName: body.ownerName ?? null,
    extra: (body.extra ?? {}) as Record<string, unknown>,
    createdAt: new Date(now).toISOString(),
  }
}
