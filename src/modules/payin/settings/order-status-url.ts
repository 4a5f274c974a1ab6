export const ORDER_STATUS_URL_PLACEHOLDERS = ["order_id", "display_id", "cart_id", "country_code"] as const
export type OrderStatusUrlPlaceholder = (typeof ORDER_STATUS_URL_PLACEHOLDERS)[number]
export type OrderStatusUrlValues = Partial<Record<OrderStatusUrlPlaceholder, string | number | null | undefined>>

const MAX_TEMPLATE_LENGTH = 2048
const PLACEHOLDER = /\{([^{}]*)\}/g

export function orderStatusUrlTemplateError(template: string): string | null {
  const known = ORDER_STATUS_URL_PLACEHOLDERS.map((p) => `{${p}}`).join(", ")
  if (template.length > MAX_TEMPLATE_LENGTH) {
    return `must be at most ${MAX_TEMPLATE_LENGTH} characters`
  }
  // (the value itself is never echoed: option errors name the field only)
  const unknown = [...template.matchAll(PLACEHOLDER)]
    .map((m) => m[1])
    .filter((name) => !(ORDER_STATUS_URL_PLACEHOLDERS as readonly string[]).includes(name))
  if (unknown.length) {
    return `may only use the placeholders ${known}`
  }
  const sample = template.replace(PLACEHOLDER, "x")
  if (/[{}]/.test(sample)) {
    return `has an unmatched brace (placeholders: ${known})`
  }
  let url: URL
  try {
    url = new URL(sample)
  } catch {
    return "must be an absolute http(s) URL, e.g. https://shop.example.com/order/{order_id}"
  }
  if ((url.protocol !== "https:" && url.protocol !== "http:") || !url.hostname) {
    return "must be an absolute http(s) URL, e.g. https://shop.example.com/order/{order_id}"
  }
  if (url.username || url.password) {
    return "must not contain credentials"
  }
  return null
}

/** Null when a used placeholder has no value, so a notification never carries a half-filled link. */
export function fillOrderStatusUrl(template: string, values: OrderStatusUrlValues): string | null {
  let missing = false
  const filled = template.replace(PLACEHOLDER, (whole, name: string) => {
    const value = values[name as OrderStatusUrlPlaceholder]
    if (value === null || value === undefined || value === "") {
      missing = true
      return whole
    }
    return encodeURIComponent(String(value))
  })
  return missing ? null : filled
}
