import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "crypto"

// AES-256-GCM under an HKDF-SHA256 key from PAYIN_ENCRYPTION_KEY, with the row's scope as associated data (a value copied to another row does not decrypt).
// Stored form: `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url); the key id tells a wrong secret from a damaged value.

export const ENCRYPTION_ENV = "PAYIN_ENCRYPTION_KEY"
/** The previous secret while rotating PAYIN_ENCRYPTION_KEY: values made with it still decrypt. */
export const PREVIOUS_ENCRYPTION_ENV = "PAYIN_ENCRYPTION_KEY_PREVIOUS"
const MIN_SECRET_LENGTH = 32

export class PayinSecretError extends Error {
  constructor(
    readonly reason: "missing_secret" | "weak_secret" | "wrong_secret" | "damaged",
    message: string
  ) {
    super(message)
    this.name = "PayinSecretError"
  }
}

type Key = { id: string; key: Buffer }

function deriveKey(secret: string): Key {
  const key = Buffer.from(hkdfSync("sha256", Buffer.from(secret, "utf8"), "medusa-plugin-payin", "api-key-v1", 32))
  const id = createHash("sha256").update(key).digest("base64url").slice(0, 8)
  return { id, key }
}

export class SecretBox {
  private readonly keys: Key[]

  constructor(env: Record<string, string | undefined> = process.env) {
    const secrets = [env[ENCRYPTION_ENV], env[PREVIOUS_ENCRYPTION_ENV]].map((s) => s?.trim() || undefined)
    if (secrets[0] && secrets[0].length < MIN_SECRET_LENGTH) {
      throw new PayinSecretError(
        "weak_secret",
        `${ENCRYPTION_ENV} must be at least ${MIN_SECRET_LENGTH} characters (for example: openssl rand -base64 32)`
      )
    }
    this.keys = secrets.filter((s): s is string => Boolean(s)).map(deriveKey)
    if (!secrets[0]) {
      // without a current secret nothing new can be encrypted; the previous one only decrypts
      this.current = null
    } else {
      this.current = this.keys[0]
    }
  }

  private readonly current: Key | null

  get configured(): boolean {
    return this.current !== null
  }

  encrypt(plain: string, associated: string): string {
    if (!this.current) {
      throw new PayinSecretError(
        "missing_secret",
        `Set ${ENCRYPTION_ENV} on the server (a random secret of at least ${MIN_SECRET_LENGTH} characters) to store an API key from the admin`
      )
    }
    const iv = randomBytes(12)
    const cipher = createCipheriv("aes-256-gcm", this.current.key, iv)
    cipher.setAAD(Buffer.from(associated, "utf8"))
    const ciphertext = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()])
    const tag = cipher.getAuthTag()
    return ["v1", this.current.id, iv.toString("base64url"), tag.toString("base64url"), ciphertext.toString("base64url")].join(".")
  }

  decrypt(stored: string, associated: string): string {
    const parts = stored.split(".")
    if (parts.length !== 5 || parts[0] !== "v1") {
      throw new PayinSecretError("damaged", "the stored API key is not in a known format")
    }
    const [, keyId, iv, tag, ciphertext] = parts
    const key = this.keys.find((k) => k.id === keyId)
    if (!key) {
      throw new PayinSecretError(
        this.keys.length ? "wrong_secret" : "missing_secret",
        this.keys.length
          ? `the stored API key was encrypted with another ${ENCRYPTION_ENV}: set the secret it was saved with ` +
              `(or put that one in ${PREVIOUS_ENCRYPTION_ENV} while rotating), or enter the API key again in the admin`
          : `${ENCRYPTION_ENV} is not set, so the API key stored from the admin cannot be decrypted: set the secret ` +
              "it was saved with"
      )
    }
    try {
      const decipher = createDecipheriv("aes-256-gcm", key.key, Buffer.from(iv, "base64url"))
      decipher.setAAD(Buffer.from(associated, "utf8"))
      decipher.setAuthTag(Buffer.from(tag, "base64url"))
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8")
    } catch {
      throw new PayinSecretError("damaged", "the stored API key failed its integrity check (altered or damaged)")
    }
  }

  isStale(stored: string): boolean {
    return Boolean(this.current) && stored.split(".")[1] !== this.current!.id
  }
}

export function maskKey(last4: string | null | undefined): string | null {
  return last4 ? `••••${last4}` : null
}

export function lastFour(key: string): string {
  return key.slice(-4)
}
