import type { PayinStatusView } from "./types"

/**
 * Turning a requisite into something tappable. The requisite comes from a third-party service, so
 * a link is only ever offered when it is plainly safe to open: https for web pages, a custom app
 * scheme for bank apps, never a scheme that runs code or reads local data.
 */

/** Links a shopper can open to pay; every field is absent when the requisite offers none. */
export type PayinLinks = {
  /** An SBP QR link (`https://qr.nspk.ru/…`): on a phone it opens the bank chooser. */
  sbpQrUrl?: string
  /** A bank's https payment page for this transfer. */
  payUrl?: string
  /** A bank app link (`bankname://…`). */
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

/**
 * Payment links the requisite allows: method `qr` or `link` with an SBP QR link → `sbpQrUrl`,
 * with another https URL → `payUrl`; method `deeplink` with a custom app scheme → `appUrl` (an
 * https universal link → `payUrl`). Cards, phones and accounts have none, nor does a final pay-in.
 */
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

/**
 * The text to show as a QR code, so a shopper on a computer can pay from their phone: the SBP
 * link, else the pay link, else the app link; null when there is none (there is no standard QR
 * for a card or phone transfer).
 */
export function qrPayload(view: Pick<PayinStatusView, "method" | "requisite"> & { final?: boolean }): string | null {
  const links = paymentLinks(view)
  return links.sbpQrUrl ?? links.payUrl ?? links.appUrl ?? null
}

/**
 * The hosted Payment Page link when it is safe to open: https, or http on this machine (the
 * sandbox serves its page on localhost).
 */
export function safePaymentPageUrl(value: unknown): string | null {
  const https = safeHttpsUrl(value)
  if (https) return https
  const url = parse(value)
  const local = url && url.protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname)
  return local && !url.username && !url.password ? url.href : null
}
