// medusa-plugin-payin/client: nothing here imports Medusa.
export * from "./schemas"
export * from "./signature"
export * from "./errors"
export * from "./client"
export * from "./calls"
export * from "./outcome"
export { OPERATION_DEADLINE_FACTOR } from "./deadline"
