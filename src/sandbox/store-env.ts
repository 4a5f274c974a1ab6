// `payin-sandbox --store-url URL`: webhooks go to the store's default instance, and the two .env lines the store needs are printed.

export const DEFAULT_PROVIDER_INSTANCE = "default"

/** Keeps a path prefix the store is served under; throws on anything but an http(s) URL without query, fragment or credentials. */
export function storeWebhookUrl(storeUrl: string): string {
  let url: URL
  try {
    url = new URL(storeUrl)
  } catch {
    throw new Error(`--store-url must be an http(s) URL, got "${storeUrl}"`)
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`--store-url must be an http(s) URL, got "${storeUrl}"`)
  }
  if (url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
    throw new Error(`--store-url must be the store's base URL (no query, fragment or credentials), got "${storeUrl}"`)
  }
  const base = `${url.origin}${url.pathname.replace(/\/+$/, "")}`
  return `${base}/hooks/payin/${DEFAULT_PROVIDER_INSTANCE}`
}

/** Single-quoted unless dotenv takes it literally (single quotes are literal in dotenv and dotenv-expand). */
export function envValue(value: string): string {
  if (/^[^\s#'"`\\$]*$/.test(value)) return value
  if (value.includes("'") || /[\r\n]/.test(value)) {
    throw new Error("the API key cannot be written as a .env line (it holds a quote or a line break): choose another --api-key")
  }
  return `'${value}'`
}

export function storeEnvLines(options: { apiKey: string; baseUrl: string; webhookUrl: string }): string[] {
  return [
    `webhooks go to ${options.webhookUrl}`,
    "# paste into the store's .env (then restart `medusa develop`):",
    `PAYIN_API_KEY=${envValue(options.apiKey)}`,
    `PAYIN_BASE_URL=${envValue(options.baseUrl)}`,
  ]
}
