// No imports: the admin bundles this list without the client's zod schemas.
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
