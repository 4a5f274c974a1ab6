import fc from "fast-check"
import { PayinSecretError, SecretBox, maskKey } from "../secrets"

const SECRET = "unit-test-secret-0123456789abcdefghij"
const OTHER = "another-unit-test-secret-0123456789abcd"

describe("SecretBox (AES-256-GCM at rest)", () => {
  const box = new SecretBox({ PAYIN_ENCRYPTION_KEY: SECRET })

  it("round-trips any key and never stores it in clear", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 8, maxLength: 200 }), (key) => {
        const stored = box.encrypt(key, "provider:default")
        expect(stored.startsWith("v1.")).toBe(true)
        if (key.length > 3) expect(stored).not.toContain(key)
        expect(box.decrypt(stored, "provider:default")).toBe(key)
      })
    )
  })

  it("uses a fresh IV: the same key encrypts differently each time", () => {
    expect(box.encrypt("same-key-12345678", "s")).not.toBe(box.encrypt("same-key-12345678", "s"))
  })

  it("refuses a value moved to another row, altered, or made with another secret", () => {
    const stored = box.encrypt("merchant-key-12345678", "provider:default")
    expect(() => box.decrypt(stored, "provider:other")).toThrow(/integrity/)
    const parts = stored.split(".")
    const flipped = Buffer.from(parts[4], "base64url")
    flipped[0] ^= 1
    parts[4] = flipped.toString("base64url")
    expect(() => box.decrypt(parts.join("."), "provider:default")).toThrow(/integrity/)
    expect(() => box.decrypt("garbage", "provider:default")).toThrow(/known format/)
    const other = new SecretBox({ PAYIN_ENCRYPTION_KEY: OTHER })
    expect(() => other.decrypt(stored, "provider:default")).toThrow(/encrypted with another PAYIN_ENCRYPTION_KEY/)
    const none = new SecretBox({})
    expect(none.configured).toBe(false)
    expect(() => none.decrypt(stored, "provider:default")).toThrow(/PAYIN_ENCRYPTION_KEY is not set/)
    expect(() => none.encrypt("merchant-key-12345678", "provider:default")).toThrow(PayinSecretError)
  })

  it("rotates the secret: the previous one still decrypts, and old values are reported stale", () => {
    const stored = box.encrypt("merchant-key-12345678", "p")
    const rotated = new SecretBox({ PAYIN_ENCRYPTION_KEY: OTHER, PAYIN_ENCRYPTION_KEY_PREVIOUS: SECRET })
    expect(rotated.decrypt(stored, "p")).toBe("merchant-key-12345678")
    expect(rotated.isStale(stored)).toBe(true)
    expect(rotated.isStale(rotated.encrypt("merchant-key-12345678", "p"))).toBe(false)
  })

  it("refuses a weak secret with a message that says how to make one", () => {
    expect(() => new SecretBox({ PAYIN_ENCRYPTION_KEY: "short" })).toThrow(/at least 32 characters.*openssl rand/)
  })

  it("masks to the last four characters", () => {
    expect(maskKey("abcd")).toBe("••••abcd")
    expect(maskKey(null)).toBeNull()
  })
})
