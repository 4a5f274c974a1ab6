import type { TransactionStatus } from "../client/schemas"

/**
 * The sandbox's transition table. The spec fixes creation -> active, active -> closed (payment)
 * and active -> canceled (window expiry); the dispute moves are the sandbox's documented choice
 * (a paid, closed transaction can be disputed too; from there it can end closed again).
 */
export const ACTIONS = ["pay", "expire", "cancel", "dispute", "checking", "recalculate", "close"] as const
export type Action = (typeof ACTIONS)[number]

export const TRANSITIONS: Record<Action, { from: readonly TransactionStatus[]; to: TransactionStatus }> = {
  pay: { from: ["active"], to: "closed" },
  expire: { from: ["active"], to: "canceled" },
  cancel: { from: ["active"], to: "canceled" },
  dispute: { from: ["active", "canceled", "closed"], to: "dispute" },
  checking: { from: ["dispute"], to: "checking" },
  recalculate: { from: ["dispute", "checking"], to: "re_calculation" },
  close: { from: ["dispute", "checking", "re_calculation"], to: "closed" },
}

export function isAction(value: string): value is Action {
  return (ACTIONS as readonly string[]).includes(value)
}

/** The status `action` leads to from `status`, or null when the action is not allowed there. */
export function nextStatus(status: TransactionStatus, action: Action): TransactionStatus | null {
  const rule = TRANSITIONS[action]
  return rule.from.includes(status) ? rule.to : null
}
