// `payin-sandbox --store-url URL`: pairs the sandbox with a Medusa store in development. The
// sandbox then sends its webhooks to the store's route of the default provider instance
// (`POST /hooks/payin/default`) and prints the two lines the store's .env needs to reach it
// (`withPayin()` reads PAYIN_API_KEY and PAYIN_BASE_URL when medusa-config gives no apiKey or
// baseUrl).

/** The provider instance `withPayin()` registers when the store names none. */
export const DEFAULT_PROVIDER_INSTANCE = "default"

/**
 * The webhook URL of a store: `<store>/hooks/payin/default`, keeping a path prefix the store is
 * served under (`https://shop.example/medusa` → `https://shop.example/medusa/hooks/payin/default`).
 * Throws on anything but an http(s) URL without query, fragment or credentials.
 */
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

/**
 * A .env value: as is when dotenv takes it literally (no whitespace, "#", quotes, backslash or
 * "$"), else in single quotes (literal in dotenv and dotenv-expand).
 */
export function envValue(value: string): string {
  if (/^[^\s#'"`\\$]*$/.test(value)) return value
  if (value.includes("'") || /[\r\n]/.test(value)) {
    throw new Error("the API key cannot be written as a .env line (it holds a quote or a line break): choose another --api-key")
  }
  return `'${value}'`
}

/** What `--store-url` prints after the listening line: where webhooks go and the store's .env lines. */
export function storeEnvLines(options: { apiKey: string; baseUrl: string; webhookUrl: string }): string[] {
  return [
    `webhooks go to ${options.webhookUrl}`,
    "# paste into the store's .env (then restart `medusa develop`):",
    `PAYIN_API_KEY=${envValue(options.apiKey)}`,
    `PAYIN_BASE_URL=${envValue(options.baseUrl)}`,
  ]
}
