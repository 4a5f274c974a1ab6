import { verify } from "./signature"

export type SignatureCheck = "ok" | "missing" | "malformed" | "mismatch"

const HEX = /^[0-9a-f]+$/i
const DIGEST_HEX_LENGTH = 64

/**
 * Classifies a webhook's `x-signature` the way the spec's receiver rules answer it: missing,
 * not hexadecimal or of the wrong length (4xx, 400), or not matching the raw body (401).
 * The comparison itself is `verify` (constant time).
 */
export function checkWebhookSignature(
  rawBody: Buffer | string | undefined | null,
  header: string | string[] | undefined,
  apiKey: string
): SignatureCheck {
  const value = Array.isArray(header) ? (header.length === 1 ? header[0] : undefined) : header
  if (typeof value !== "string" || value.trim() === "") {
    return "missing"
  }
  const candidate = value.trim()
  if (!HEX.test(candidate) || candidate.length !== DIGEST_HEX_LENGTH) {
    return "malformed"
  }
  return verify(rawBody ?? undefined, candidate, apiKey) ? "ok" : "mismatch"
}
