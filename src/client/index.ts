export * from "./schemas"
export * from "./signature"
