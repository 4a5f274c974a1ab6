declare const __BACKEND_URL__: string | undefined

const base = (typeof __BACKEND_URL__ !== "undefined" && __BACKEND_URL__ ? __BACKEND_URL__ : "").replace(/\/$/, "")

/** The admin API's full URL of `path` (plain links, e.g. CSV downloads, use it as they are). */
export function adminUrl(path: string): string {
  return `${base}${path}`
}

export type FieldError = { path: string; message: string }

/** An error answer of the admin API, with the fields a 400 names. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fields: FieldError[] = [],
    readonly body: Record<string, unknown> = {}
  ) {
    super(message)
  }
}

export async function adminFetch<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const res = await fetch(adminUrl(path), {
    method: init.method ?? "GET",
    credentials: "include",
    headers: init.body === undefined ? { accept: "application/json" } : { "content-type": "application/json", accept: "application/json" },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  })
  const text = await res.text()
  let json: Record<string, unknown> = {}
  try {
    json = text ? JSON.parse(text) : {}
  } catch {
    json = { message: text }
  }
  if (!res.ok) {
    throw new ApiError(res.status, String(json.message ?? res.statusText), (json.fields as FieldError[]) ?? [], json)
  }
  return json as T
}
