/**
 * The service's pay-in methods. No imports: the admin bundles this list without the client's
 * zod schemas (src/client/schemas.ts builds PayinMethodSchema from it).
 */
export const PAYIN_METHODS = [
  "account",
  "card",
  "deeplink",
  "link",
  "phone_number",
  "qr",
  "quasi",
  "mobile_comm",
] as const
