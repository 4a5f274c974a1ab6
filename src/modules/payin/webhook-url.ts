// The webhook route's public URL, `<base>/hooks/payin/<id>`, the one the merchant pastes into the
// merchant panel: the admin's routes show it, the health check judges it.
import { isIP } from "net"
import type { MedusaRequest } from "@medusajs/framework/http"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"

/** Shown when the store's public URL is unknown: the admin fills it in (or sets MEDUSA_BACKEND_URL). */
export const UNKNOWN_BASE_URL = "https://<your-medusa-backend-url>"

export const webhookPath = (instanceId: string) => `/hooks/payin/${instanceId}`

export const webhookUrl = (base: string, instanceId: string) => `${base}${webhookPath(instanceId)}`

export type ConfigLike = {
  admin?: { backendUrl?: string }
  projectConfig?: { http?: { adminCors?: string; authCors?: string; storeCors?: string } }
}

/** An absolute http(s) URL without its trailing slash, or null (Medusa's default backendUrl is "/"). */
function absoluteUrl(value: unknown): URL | null {
  if (typeof value !== "string" || !/^https?:\/\//i.test(value.trim())) return null
  try {
    const url = new URL(value.trim())
    return url.username || url.password ? null : url
  } catch {
    return null
  }
}

const withoutSlash = (url: URL) => `${url.origin}${url.pathname.replace(/\/+$/, "")}`

/** Medusa's `admin.backendUrl` (MEDUSA_BACKEND_URL) as the base, when it is an absolute URL; what a process without a request has. */
export function configuredBaseUrl(config: ConfigLike | undefined): string | null {
  const configured = absoluteUrl(config?.admin?.backendUrl)
  return configured && withoutSlash(configured)
}

/** A bare `host[:port]` as a Host header carries it (no path, user info or spaces), lower case; else null. */
function hostOf(header: unknown): string | null {
  if (typeof header !== "string" || !header || header.length > 255 || /[\s/\\@?#,]/.test(header)) return null
  try {
    const url = new URL(`http://${header}`)
    return url.host === header.toLowerCase() ? url.host : null
  } catch {
    return null
  }
}

function isLoopback(host: string): boolean {
  const name = host.replace(/:\d+$/, "").replace(/^\[|\]$/g, "")
  if (name === "localhost" || name.endsWith(".localhost")) return true
  if (isIP(name) === 4) return name.startsWith("127.")
  return name === "::1"
}

// No request header chooses the host: a forged X-Forwarded-Host would make the admin paste an attacker's address, where every callback would go.
export function webhookBaseUrl(req: Pick<MedusaRequest, "headers" | "socket"> & { scope?: { resolve(key: string): unknown } }): string {
  let config: ConfigLike | undefined
  try {
    config = req.scope?.resolve(ContainerRegistrationKeys.CONFIG_MODULE) as ConfigLike | undefined
  } catch {
    config = undefined
  }
  const configured = configuredBaseUrl(config)
  if (configured) {
    return configured
  }
  const host = hostOf(req.headers?.host)
  if (!host) {
    return UNKNOWN_BASE_URL
  }
  const http = config?.projectConfig?.http ?? {}
  for (const entry of [http.adminCors, http.authCors, http.storeCors].flatMap((list) => (list ?? "").split(","))) {
    const origin = absoluteUrl(entry)
    if (origin && origin.host === host) {
      return `${origin.protocol}//${host}`
    }
  }
  if (isLoopback(host)) {
    const encrypted = Boolean((req.socket as { encrypted?: boolean } | undefined)?.encrypted)
    return `${encrypted ? "https" : "http"}://${host}`
  }
  return UNKNOWN_BASE_URL
}
