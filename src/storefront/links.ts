import type { PayinStatusView } from "./types"

// The requisite comes from a third-party service: a link is offered only when plainly safe to open, never a scheme that runs code or reads local data.

export type PayinLinks = {
  /** An SBP QR link (`https://qr.nspk.ru/…`): on a phone it opens the bank chooser. */
  sbpQrUrl?: string
  payUrl?: string
  appUrl?: string
}

const SBP_QR_HOST = "qr.nspk.ru"
const MAX_URL_LENGTH = 2048
/** Schemes browsers treat as code, local data or their own pages, plus plain web schemes. */
const NOT_APP_SCHEMES = new Set([
  "javascript:",
  "data:",
  "vbscript:",
  "file:",
  "blob:",
  "about:",
  "filesystem:",
  "view-source:",
  "http:",
  "https:",
  "ftp:",
  "ws:",
  "wss:",
])

function parse(value: unknown): URL | null {
  if (typeof value !== "string" || !value || value.length > MAX_URL_LENGTH) return null
  // The URL parser silently drops tabs, newlines and edge spaces ("java\tscript:"): refuse them.
  if (/[\u0000-\u0020\u007f-\u009f]/.test(value)) return null
  try {
    return new URL(value)
  } catch {
    return null
  }
}

/** The URL when it is https with a host and no credentials (`https://bank@evil.example` is refused). */
export function safeHttpsUrl(value: unknown): string | null {
  const url = parse(value)
  return url && url.protocol === "https:" && url.hostname && !url.username && !url.password ? url.href : null
}

function appUrl(value: string): string | null {
  const url = parse(value)
  if (!url || !/^[a-z][a-z0-9+.-]*:$/.test(url.protocol) || NOT_APP_SCHEMES.has(url.protocol)) return null
  return url.href
}

function webLinks(value: string): PayinLinks {
  const url = safeHttpsUrl(value)
  if (!url) return {}
  return new URL(url).hostname === SBP_QR_HOST ? { sbpQrUrl: url } : { payUrl: url }
}

/** `qr`/`link`: an SBP QR or https link; `deeplink`: an https or custom-app link; none for a final pay-in. */
export function paymentLinks(view: Pick<PayinStatusView, "method" | "requisite"> & { final?: boolean }): PayinLinks {
  const number = view.requisite?.number?.trim()
  if (!number || view.final) return {}
  switch (view.method) {
    case "qr":
    case "link":
    case null:
    case undefined:
      return webLinks(number)
    case "deeplink": {
      const web = webLinks(number)
      if (web.payUrl || web.sbpQrUrl) return web
      const app = appUrl(number)
      return app ? { appUrl: app } : {}
    }
    default:
      return {}
  }
}

/** The SBP link, else the pay link, else the app link (there is no standard QR for a card or phone transfer). */
export function qrPayload(view: Pick<PayinStatusView, "method" | "requisite"> & { final?: boolean }): string | null {
  const links = paymentLinks(view)
  return links.sbpQrUrl ?? links.payUrl ?? links.appUrl ?? null
}

/** https, or http on this machine (the sandbox serves its page on localhost). */
export function safePaymentPageUrl(value: unknown): string | null {
  const https = safeHttpsUrl(value)
  if (https) return https
  const url = parse(value)
  const local = url && url.protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname)
  return local && !url.username && !url.password ? url.href : null
}
