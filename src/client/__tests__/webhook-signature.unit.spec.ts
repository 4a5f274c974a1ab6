import { createHmac } from "crypto"
import fc from "fast-check"
import { checkWebhookSignature } from "../webhook-signature"

const key = "merchant-api-key-123"
const body = Buffer.from('{"id":"tx","status":"closed"}')
const good = createHmac("sha256", key).update(body).digest("hex")

describe("checkWebhookSignature", () => {
  it("accepts the lower-case hex HMAC-SHA256 of the raw bytes", () => {
    expect(checkWebhookSignature(body, good, key)).toBe("ok")
  })

  it("classifies missing, malformed and mismatching signatures", () => {
    expect(checkWebhookSignature(body, undefined, key)).toBe("missing")
    expect(checkWebhookSignature(body, "", key)).toBe("missing")
    expect(checkWebhookSignature(body, ["a", "b"], key)).toBe("missing")
    expect(checkWebhookSignature(body, "g".repeat(64), key)).toBe("malformed")
    expect(checkWebhookSignature(body, good.slice(0, 63), key)).toBe("malformed")
    expect(checkWebhookSignature(body, good + "00", key)).toBe("malformed")
    expect(checkWebhookSignature(body, good.replace(/^./, good[0] === "0" ? "1" : "0"), key)).toBe("mismatch")
    expect(checkWebhookSignature(Buffer.from(body.toString() + " "), good, key)).toBe("mismatch")
    expect(checkWebhookSignature(body, good, "another-key")).toBe("mismatch")
  })

  it("never throws, whatever the header (property)", () => {
    fc.assert(
      fc.property(fc.string(), fc.uint8Array(), (header, bytes) => {
        const result = checkWebhookSignature(Buffer.from(bytes), header, key)
        expect(["missing", "malformed", "mismatch", "ok"]).toContain(result)
      })
    )
  })
})
