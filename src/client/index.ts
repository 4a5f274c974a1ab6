// The Merchant Payment Service's HTTP API (`medusa-plugin-payin/client`): schemas, signature,
// client and its typed errors. Nothing here imports Medusa.
export * from "./schemas"
export * from "./signature"
export * from "./errors"
export * from "./client"
