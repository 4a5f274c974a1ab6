/**
 * State this process keeps per module service (the webhook drain, a probe's answer). A workflow's
 * container, which scheduled jobs get, wraps every resolve of a module service in a new Proxy, so
 * the resolved object is no key: the state is kept on the service itself under a symbol. The Proxy
 * has no set trap (a write lands on the service) and reads a non-function property from it.
 */
export function perService<T>(service: object, key: symbol, create: () => T): T {
  const holder = service as Record<symbol, { value: T } | undefined>
  const box = holder[key] ?? (holder[key] = { value: create() })
  return box.value
}
