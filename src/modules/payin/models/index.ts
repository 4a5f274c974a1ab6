export { PayinTransaction } from "./payin-transaction"
export { PayinStatusChange } from "./payin-status-change"
