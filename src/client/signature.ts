import { createHmac, timingSafeEqual } from "crypto"

/**
 * Webhook / request signature of the Merchant Payment Service: lower-case hexadecimal
 * HMAC-SHA256 of the exact body bytes, keyed with the merchant's API key.
 */

const HEX_DIGEST = /^[0-9a-fA-F]{64}$/

export function sign(body: string | Buffer | Uint8Array, key: string): string {
  return createHmac("sha256", key).update(body).digest("hex")
}

/**
 * Constant-time check of `header` against the digest of `rawBody`. Never throws: a missing,
 * non-hex or wrong-length header, an empty key or a mismatch all answer false.
 */
export function verify(
  rawBody: string | Buffer | Uint8Array | null | undefined,
  header: string | string[] | null | undefined,
  key: string | null | undefined
): boolean {
  try {
    if (rawBody === null || rawBody === undefined || !key) {
      return false
    }
    const value = Array.isArray(header) ? (header.length === 1 ? header[0] : undefined) : header
    if (typeof value !== "string") {
      return false
    }
    const candidate = value.trim()
    if (!HEX_DIGEST.test(candidate)) {
      return false
    }
    const expected = createHmac("sha256", key).update(rawBody).digest()
    const given = Buffer.from(candidate, "hex")
    if (given.length !== expected.length) {
      return false
    }
    return timingSafeEqual(given, expected)
  } catch {
    return false
  }
}
