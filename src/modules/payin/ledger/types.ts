import type { InferTypeOf } from "@medusajs/framework/types"
import type { LedgerStatus, PayinFlag, TransitionResult } from "../../../status"
import type { PayinTransaction } from "../models"

/** A ledger row as the module stores it (inferred from the model; `amount` as numeric text from SQL). */
export type LedgerRow = Omit<InferTypeOf<typeof PayinTransaction>, "history" | "amount" | "raw_amount"> & {
  amount: string | number
  raw_amount?: { value?: string } | null
}

export type StatusSource = "create" | "webhook" | "lookup" | "store" | "admin" | "authorize"

/** What a ledger write asks the merchant's subscribers to know (emitted after its commit). */
export type LedgerNotice =
  | { kind: "status"; from: LedgerStatus; to: LedgerStatus }
  | { kind: "flag"; flag: PayinFlag; details: Record<string, unknown> }
  /** The money path had Medusa capture the pay-in's payment for its order. */
  | { kind: "captured"; order_id: string }
  /** The payment window ended unpaid and the store ended the pay-in (and canceled its order, when set to). */
  | {
      kind: "expired"
      order_id: string | null
      order_canceled: boolean
      /** Pay again: the order waits until then for its shopper to ask for new payment details. */
      pay_again_until?: string | null
    }

export type RecordResult = { row: LedgerRow; transition: TransitionResult; notices: LedgerNotice[] }
