// The demo's settings from the environment, checked before anything starts: ports a browser's or
// Node's fetch can reach, and the origins an outside storefront runs on.

/** The WHATWG Fetch standard's "bad ports": Node's fetch (undici) and browsers refuse them with a bare "fetch failed". */
export const FETCH_BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113,
  115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556,
  563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667,
  6668, 6669, 6679, 6697, 10080,
])

/** A port from the environment: a number 0–65535 (0 only where `allowZero`), never one fetch refuses. */
export function demoPort(name, value, fallback, { allowZero = false } = {}) {
  const raw = value === undefined || value === "" ? String(fallback) : String(value)
  const port = Number(raw)
  if (!Number.isInteger(port) || port < 0 || port > 65535 || (port === 0 && !allowZero)) {
    throw new Error(`${name}=${raw} is not a port number${allowZero ? " (0 = any free port)" : ""}`)
  }
  if (FETCH_BAD_PORTS.has(port)) {
    throw new Error(
      `${name}=${port} is a port that fetch refuses (a WHATWG "bad port"): the storefront, the admin and the sample pay-ins could not reach it. Choose another port.`
    )
  }
  return port
}

/** A comma-separated list of origins (`https://shop.example.com`), each checked; paths are dropped. */
export function demoOrigins(name, value) {
  return String(value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      let url
      try {
        url = new URL(entry)
      } catch {
        throw new Error(`${name}: "${entry}" is not an origin like https://shop.example.com`)
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        throw new Error(`${name}: "${entry}" must be an http(s) origin`)
      }
      return url.origin
    })
}

/** The values in order, each once. */
export function uniqueList(...lists) {
  return [...new Set(lists.flat().filter(Boolean))]
}
