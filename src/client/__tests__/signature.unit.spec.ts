import { createHmac } from "crypto"
import fc from "fast-check"
import { checkWebhookSignature, sign, verify } from "../signature"

describe("signature", () => {
  it("matches the RFC 4231 HMAC-SHA256 test vector, lower-case hex", () => {
    expect(sign("what do ya want for nothing?", "Jefe")).toBe("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
  })

  it("signs strings and buffers of the same bytes identically, like an independent HMAC", () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), (body, key) => {
        const expected = createHmac("sha256", key).update(Buffer.from(body, "utf8")).digest("hex")
        expect(sign(body, key)).toBe(expected)
        expect(sign(Buffer.from(body, "utf8"), key)).toBe(expected)
        expect(expected).toMatch(/^[0-9a-f]{64}$/)
      })
    )
  })

  it("verifies its own signatures", () => {
    fc.assert(
      fc.property(fc.uint8Array(), fc.string({ minLength: 1 }), (bytes, key) => {
        const body = Buffer.from(bytes)
        expect(verify(body, sign(body, key), key)).toBe(true)
      })
    )
  })

  it("rejects any altered digest, body or key", () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), fc.nat(63), (body, key, index) => {
        const signature = sign(body, key)
        const flipped = signature.slice(0, index) + (signature[index] === "0" ? "1" : "0") + signature.slice(index + 1)
        expect(verify(body, flipped, key)).toBe(false)
        expect(verify(`${body} `, signature, key)).toBe(false)
        expect(verify(body, signature, `${key}x`)).toBe(false)
      })
    )
  })

  it("answers false for missing, non-hex and wrong-length headers", () => {
    const body = '{"id":"1"}'
    const good = sign(body, "k")
    for (const header of [undefined, null, "", "zz", good.slice(0, 62), `${good}00`, good.replace(/[0-9a-f]/, "g"), `sha256=${good}`]) {
      expect(verify(body, header as string | undefined, "k")).toBe(false)
    }
    expect(verify(body, [good, good], "k")).toBe(false)
    expect(verify(body, [good], "k")).toBe(true)
    expect(verify(body, good, "")).toBe(false)
    expect(verify(undefined, good, "k")).toBe(false)
  })

  it("never throws, whatever it is given", () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.anything(), (body, header, key) => {
        expect(() => verify(body as string, header as string, key as string)).not.toThrow()
        expect(typeof verify(body as string, header as string, key as string)).toBe("boolean")
      })
    )
  })

  describe("checkWebhookSignature", () => {
    const key = "merchant-api-key-123"
    const body = Buffer.from('{"id":"tx","status":"closed"}')
    const good = createHmac("sha256", key).update(body).digest("hex")

    it("accepts the lower-case hex HMAC-SHA256 of the raw bytes, upper-case hex and surrounding spaces too", () => {
      expect(checkWebhookSignature(body, good, key)).toBe("ok")
      expect(checkWebhookSignature(body, good.toUpperCase(), key)).toBe("ok")
      expect(checkWebhookSignature(body, ` ${good} `, key)).toBe("ok")
      expect(checkWebhookSignature(body, [good], key)).toBe("ok")
    })

    it("classifies missing, malformed and mismatching signatures", () => {
      expect(checkWebhookSignature(body, undefined, key)).toBe("missing")
      expect(checkWebhookSignature(body, null, key)).toBe("missing")
      expect(checkWebhookSignature(body, "", key)).toBe("missing")
      expect(checkWebhookSignature(body, "   ", key)).toBe("missing")
      expect(checkWebhookSignature(body, ["a", "b"], key)).toBe("missing")
      expect(checkWebhookSignature(body, [good, good], key)).toBe("missing")
      expect(checkWebhookSignature(body, "g".repeat(64), key)).toBe("malformed")
      expect(checkWebhookSignature(body, good.slice(0, 63), key)).toBe("malformed")
      expect(checkWebhookSignature(body, good + "00", key)).toBe("malformed")
      expect(checkWebhookSignature(body, `sha256=${good}`, key)).toBe("malformed")
      expect(checkWebhookSignature(body, good.replace(/^./, good[0] === "0" ? "1" : "0"), key)).toBe("mismatch")
      expect(checkWebhookSignature(Buffer.from(body.toString() + " "), good, key)).toBe("mismatch")
      expect(checkWebhookSignature(body, good, "another-key")).toBe("mismatch")
      expect(checkWebhookSignature(body, good, "")).toBe("mismatch")
      expect(checkWebhookSignature(undefined, good, key)).toBe("mismatch")
      expect(checkWebhookSignature(null, good, key)).toBe("mismatch")
    })

    it("answers what verify answers: ok exactly when verify is true (property)", () => {
      fc.assert(
        fc.property(fc.uint8Array(), fc.oneof(fc.string(), fc.constant(good), fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 64, maxLength: 64 })), (bytes, header) => {
          const result = checkWebhookSignature(Buffer.from(bytes), header, key)
          expect(["missing", "malformed", "mismatch", "ok"]).toContain(result)
          expect(result === "ok").toBe(verify(Buffer.from(bytes), header, key))
        })
      )
    })

    it("never throws, whatever it is given (property)", () => {
      fc.assert(
        fc.property(fc.anything(), fc.anything(), fc.anything(), (raw, header, anyKey) => {
          const result = checkWebhookSignature(raw as string, header as string, anyKey as string)
          expect(["missing", "malformed", "mismatch", "ok"]).toContain(result)
        })
      )
    })
  })
})
