import type { InferTypeOf } from "@medusajs/framework/types"
import type { LedgerStatus, PayinFlag, TransitionResult } from "../../../status"
import type { PayinTransaction } from "../models"

/** `amount` as raw SQL returns a numeric: text. */
export type LedgerRow = Omit<InferTypeOf<typeof PayinTransaction>, "history" | "amount" | "raw_amount"> & {
  amount: string | number
  raw_amount?: { value?: string } | null
}

/** A row as read with its version (PostgreSQL's xmin, changed by every write): a write conditional on it sees exactly this row. */
export type SeenRow = LedgerRow & { row_version?: string }

export type StatusSource = "create" | "webhook" | "lookup" | "store" | "admin" | "authorize"

export type LedgerNotice =
  | { kind: "status"; from: LedgerStatus; to: LedgerStatus }
  | { kind: "flag"; flag: PayinFlag; details: Record<string, unknown> }
  | { kind: "captured"; order_id: string }
  | {
      kind: "expired"
      order_id: string | null
      order_canceled: boolean
      pay_again_until?: string | null
    }

export type RecordResult = { row: LedgerRow; transition: TransitionResult; notices: LedgerNotice[] }
