import { BlockList, isIP } from "net"

/** Throws with a clear message when `entry` is not an IPv4/IPv6 address or CIDR range. */
function addEntry(list: BlockList, entry: string): void {
  const value = entry.trim()
  const slash = value.indexOf("/")
  if (slash === -1) {
    const family = isIP(value)
    if (family === 0) throw new Error(`not an IP address or CIDR range: "${entry}"`)
    list.addAddress(value, family === 4 ? "ipv4" : "ipv6")
    return
  }
  const address = value.slice(0, slash)
  const prefixText = value.slice(slash + 1)
  const family = isIP(address)
  const prefix = Number(prefixText)
  const max = family === 4 ? 32 : 128
  if (family === 0 || !/^\d{1,3}$/.test(prefixText) || prefix > max) {
    throw new Error(`not an IP address or CIDR range: "${entry}"`)
  }
  list.addSubnet(address, prefix, family === 4 ? "ipv4" : "ipv6")
}

/** Validates whitelist entries; answers the first problem or null. */
export function whitelistError(entries: readonly string[]): string | null {
  try {
    const list = new BlockList()
    for (const entry of entries) addEntry(list, entry)
    return null
  } catch (err) {
    return (err as Error).message
  }
}

/**
 * The merchant's IP whitelist (IPv4, IPv6 and CIDR entries) on node's net.BlockList. An empty
 * list allows everyone. IPv4-mapped IPv6 peers (::ffff:a.b.c.d, what a dual-stack socket reports
 * for IPv4 clients) are matched as their IPv4 address too.
 */
export class Whitelist {
  private list = new BlockList()
  readonly entries: readonly string[]

  constructor(entries: readonly string[]) {
    this.entries = entries.map((e) => e.trim())
    for (const entry of this.entries) addEntry(this.list, entry)
  }

  get enabled(): boolean {
    return this.entries.length > 0
  }

  allows(remoteAddress: string | undefined): boolean {
    if (!this.enabled) return true
    if (!remoteAddress) return false
    const address = remoteAddress.replace(/%.*$/, "")
    const family = isIP(address)
    if (family === 4) return this.list.check(address, "ipv4")
    if (family !== 6) return false
    if (this.list.check(address, "ipv6")) return true
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
    return mapped !== null && this.list.check(mapped[1], "ipv4")
  }
}
