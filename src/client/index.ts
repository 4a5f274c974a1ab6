// medusa-plugin-payin/client: nothing here imports Medusa.
export * from "./schemas"
export * from "./signature"
export * from "./errors"
export * from "./client"
export { OPERATION_DEADLINE_FACTOR } from "./deadline"
