import { createHmac, timingSafeEqual } from "crypto"

// Lower-case hex HMAC-SHA256 of the exact body bytes, keyed with the merchant's API key.

const HEX_DIGEST = /^[0-9a-f]{64}$/i

export type SignatureCheck = "ok" | "missing" | "malformed" | "mismatch"

type Body = string | Buffer | Uint8Array

function digest(body: Body, key: string): Buffer {
  return createHmac("sha256", key).update(body).digest()
}

export function sign(body: Body, key: string): string {
  return digest(body, key).toString("hex")
}

/** Answers as the spec's receiver rules do (a header sent twice counts as missing); constant-time; never throws. */
export function checkWebhookSignature(
  rawBody: Body | null | undefined,
  header: string | string[] | null | undefined,
  key: string | null | undefined
): SignatureCheck {
  try {
    const value = Array.isArray(header) ? (header.length === 1 ? header[0] : undefined) : header
    if (typeof value !== "string" || value.trim() === "") {
      return "missing"
    }
    const candidate = value.trim()
    if (!HEX_DIGEST.test(candidate)) {
      return "malformed"
    }
    if (rawBody === null || rawBody === undefined || typeof key !== "string" || key === "") {
      return "mismatch"
    }
    return timingSafeEqual(Buffer.from(candidate, "hex"), digest(rawBody, key)) ? "ok" : "mismatch"
  } catch {
    return "mismatch"
  }
}

export function verify(
  rawBody: Body | null | undefined,
  header: string | string[] | null | undefined,
  key: string | null | undefined
): boolean {
  return checkWebhookSignature(rawBody, header, key) === "ok"
}
