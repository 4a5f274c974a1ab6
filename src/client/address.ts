import { lookup as dnsLookup } from "dns"
import { isIP } from "net"

// Node's lookup shapes, restated here so the shipped declarations name no Node module (a store's
// type check resolves them without @types/node's ambient modules).
type LookupAddress = { address: string; family: number }
type LookupOptions = { all?: boolean; family?: number | string; hints?: number; order?: string; verbatim?: boolean }
type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void
export type GuardedLookup = (hostname: string, options: LookupOptions, callback: LookupCallback) => void
export type AllAddressesLookup = (
  hostname: string,
  options: LookupOptions & { all: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void
) => void

// A name may resolve differently a second later, so the addresses a connection actually uses are checked again (guardedLookup).

const IPV4_REFUSED: [string, number][] = [
  ["0.0.0.0", 8], // "this network", including the unspecified 0.0.0.0
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // shared address space (carrier NAT; a cloud metadata service lives at 100.100.100.200)
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, cloud metadata 169.254.169.254
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments (a cloud metadata service lives at 192.0.0.192)
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
]

/** [network, prefix length] of the IPv6 ranges refused (IPv4 embedded otherwise is checked as IPv4). */
const IPV6_REFUSED: [string, number][] = [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["fc00::", 7], // unique local (private), incl. fd00:ec2::254 (a cloud metadata service)
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
  ["100::", 64], // discard
  ["::ffff:0:0", 96], // IPv4-mapped: a public server is named by its IPv4 address, never this way
  ["::ffff:0:0:0", 96], // IPv4-translated (RFC 2765)
  ["64:ff9b:1::", 48], // local-use NAT64 (RFC 8215): a local translator may reach any IPv4, private ones too
]

/** Host names of cloud metadata services (they resolve to link-local addresses, when they resolve). */
const METADATA_NAMES = new Set(["metadata", "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal"])

function ipv4Bytes(address: string): number[] | null {
  const parts = address.split(".")
  if (parts.length !== 4) return null
  const bytes = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : NaN))
  return bytes.every((b) => b >= 0 && b <= 255) ? bytes : null
}

function ipv6Bytes(address: string): number[] | null {
  let text = address.replace(/%.*$/, "") // zone id (fe80::1%eth0)
  const tail: number[] = []
  const dotted = text.match(/^(.*:)(\d{1,3}(?:\.\d{1,3}){3})$/)
  if (dotted) {
    const v4 = ipv4Bytes(dotted[2])
    if (!v4) return null
    tail.push(...v4)
    text = `${dotted[1]}0:0` // two placeholder groups, replaced by the IPv4 bytes below
  }
  const halves = text.split("::")
  if (halves.length > 2) return null
  const groups = (half: string) => (half === "" ? [] : half.split(":"))
  const head = groups(halves[0])
  const rest = halves.length === 2 ? groups(halves[1]) : []
  const missing = 8 - head.length - rest.length
  if ((halves.length === 2 && missing < 1) || (halves.length === 1 && missing !== 0)) return null
  const all = [...head, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...rest]
  const bytes: number[] = []
  for (const group of all) {
    if (!/^[0-9a-f]{1,4}$/i.test(group)) return null
    const value = parseInt(group, 16)
    bytes.push(value >> 8, value & 0xff)
  }
  if (tail.length) bytes.splice(12, 4, ...tail)
  return bytes.length === 16 ? bytes : null
}

function inRange(bytes: number[], network: number[], prefix: number): boolean {
  for (let bit = 0; bit < prefix; bit++) {
    const i = bit >> 3
    const mask = 0x80 >> (bit & 7)
    if ((bytes[i] & mask) !== (network[i] & mask)) return false
  }
  return true
}

const v4Ranges = IPV4_REFUSED.map(([net, prefix]) => [ipv4Bytes(net)!, prefix] as const)
const v6Ranges = IPV6_REFUSED.map(([net, prefix]) => [ipv6Bytes(net)!, prefix] as const)

/** The IPv4 address an IPv6 address carries (compatible, NAT64, 6to4), if any; mapped ones are refused outright. */
function embeddedIpv4(bytes: number[]): number[] | null {
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0)
  if (zeros(0, 12) && !zeros(12, 16)) return bytes.slice(12) // ::a.b.c.d (deprecated "compatible")
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12)) return bytes.slice(12) // 64:ff9b::/96
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return bytes.slice(2, 6) // 2002::/16 (6to4)
  return null
}

/** Anything that is not an IP address counts as refused (fail closed). */
export function isRefusedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "")
  const family = isIP(bare.replace(/%.*$/, ""))
  if (family === 4) {
    const bytes = ipv4Bytes(bare)!
    return v4Ranges.some(([net, prefix]) => inRange(bytes, net, prefix))
  }
  if (family === 6) {
    const bytes = ipv6Bytes(bare)
    if (!bytes) return true
    const v4 = embeddedIpv4(bytes)
    if (v4 && v4Ranges.some(([net, prefix]) => inRange(v4, net, prefix))) return true
    return v6Ranges.some(([net, prefix]) => inRange(bytes, net, prefix))
  }
  return true
}

/** Null when only DNS can tell. */
export function refusedHostName(hostname: string): string | null {
  const host = hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase()
  if (!host) return "the host is empty"
  if (host === "localhost" || host.endsWith(".localhost")) return `${host} is this machine (loopback)`
  if (METADATA_NAMES.has(host)) return `${host} is a cloud metadata service`
  if (isIP(host.replace(/%.*$/, ""))) {
    return isRefusedAddress(host) ? `${host} is a private, loopback, link-local or otherwise non-public address` : null
  }
  return null
}

export type Resolve = (hostname: string) => Promise<{ address: string }[]>

const resolveAll: Resolve = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)))
  )

/** A name that does not resolve is refused too: nothing could be reached, and nothing was checked. */
export async function refusedHost(hostname: string, resolve: Resolve = resolveAll): Promise<string | null> {
  const byName = refusedHostName(hostname)
  if (byName) return byName
  const host = hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "")
  if (isIP(host.replace(/%.*$/, ""))) return null
  let addresses: { address: string }[]
  try {
    addresses = await resolve(host)
  } catch (error) {
    return `${host} could not be resolved (${(error as { code?: string }).code ?? "DNS error"})`
  }
  if (!addresses.length) return `${host} could not be resolved`
  const refused = addresses.find((a) => isRefusedAddress(a.address))
  return refused ? `${host} resolves to ${refused.address}, a private, loopback, link-local or otherwise non-public address` : null
}

export class RefusedAddressError extends Error {
  readonly code = "ADDRESS_NOT_ALLOWED"
  constructor(readonly reason: string) {
    super(`refused to connect: ${reason}`)
    this.name = "RefusedAddressError"
  }
}

/** The check made when the URL was typed holds for the address actually connected to. */
export const guardedLookup: GuardedLookup = makeGuardedLookup((hostname, { family, hints }, callback) =>
  dnsLookup(hostname, { all: true, hints, family: family === "IPv4" ? 4 : family === "IPv6" ? 6 : Number(family) || 0 }, callback)
)

export function makeGuardedLookup(lookup: AllAddressesLookup): GuardedLookup {
  return (hostname, options, callback) => {
    const fail = (error: NodeJS.ErrnoException) => callback(error, options?.all ? [] : "")
    const byName = refusedHostName(hostname)
    if (byName) {
      fail(new RefusedAddressError(byName))
      return
    }
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return fail(error)
      const refused = addresses.find((a) => isRefusedAddress(a.address))
      if (refused || !addresses.length) {
        return fail(new RefusedAddressError(refused ? `${hostname} resolves to ${refused.address}` : `${hostname} resolves to nothing`))
      }
      if (options?.all) callback(null, addresses)
      else callback(null, addresses[0].address, addresses[0].family)
    })
  }
}
