import type { LookupAddress } from "dns"
import { isRefusedAddress, makeGuardedLookup, refusedHost, refusedHostName } from "../address"

describe("addresses a URL typed in the admin may not reach", () => {
  it.each([
    "127.0.0.1",
    "127.255.0.9",
    "10.0.0.1",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.100.100.200",
    "0.0.0.0",
    "::",
    "::1",
    "fc00::1",
    "fd00:ec2::254",
    "fe80::1",
    "fe80::1%eth0",
    "::ffff:127.0.0.1",
    "::ffff:a9fe:a9fe", // 169.254.169.254 mapped into IPv6
    "::ffff:7f00:1",
    "64:ff9b::a9fe:a9fe",
    "2002:a9fe:a9fe::1", // 6to4 of 169.254.169.254
    "not an address",
  ])("refuses %s", (address) => {
    expect(isRefusedAddress(address)).toBe(true)
  })

  // refused whatever IPv4 address they carry, a public one included
  it.each([
    "::ffff:8.8.8.8", // IPv4-mapped
    "::ffff:808:808",
    "::ffff:0:8.8.8.8", // IPv4-translated (RFC 2765)
    "::ffff:0:808:808",
    "64:ff9b:1::808:808", // local-use NAT64 (RFC 8215)
    "64:ff9b:1:ffff:ffff:ffff:ffff:ffff",
  ])("refuses %s outright", (address) => {
    expect(isRefusedAddress(address)).toBe(true)
  })

  it.each(["8.8.8.8", "93.184.216.34", "172.32.0.1", "192.169.0.1", "2606:4700::1111", "64:ff9b::808:808", "64:ff9b:2::1"])(
    "allows %s",
    (address) => {
      expect(isRefusedAddress(address)).toBe(false)
    }
  )

  it("refuses loopback and metadata names and refused literals without resolving them", () => {
    for (const host of ["localhost", "LOCALHOST.", "foo.localhost", "metadata.google.internal", "[::1]", "[::ffff:a9fe:a9fe]", "10.1.2.3"]) {
      expect([host, refusedHostName(host)]).toEqual([host, expect.any(String)])
    }
    for (const url of ["https://[::ffff:8.8.8.8]/", "https://[::ffff:0:808:808]/", "https://[64:ff9b:1::808:808]/"]) {
      expect([url, refusedHostName(new URL(url).hostname)]).toEqual([url, expect.stringMatching(/non-public/)])
    }
    expect(refusedHostName("payments.example.com")).toBeNull()
    expect(refusedHostName("[2606:4700::1111]")).toBeNull()
  })

  it("resolves a name and checks every address it resolves to", async () => {
    const dns = (answers: Record<string, string[]>) => async (host: string) => {
      if (!answers[host]) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" })
      return answers[host].map((address) => ({ address }))
    }
    const resolve = dns({
      "public.example": ["93.184.216.34", "2606:2800:220:1::1"],
      "rebind.example": ["93.184.216.34", "10.0.0.7"],
      "metadata.example": ["169.254.169.254"],
      "mapped.example": ["::ffff:192.168.0.1"],
      "mapped-public.example": ["93.184.216.34", "::ffff:8.8.8.8"],
      "translated.example": ["::ffff:0:808:808"],
      "nat64-local.example": ["2606:2800:220:1::1", "64:ff9b:1::808:808"],
    })
    expect(await refusedHost("public.example", resolve)).toBeNull()
    expect(await refusedHost("rebind.example", resolve)).toMatch(/10\.0\.0\.7/)
    expect(await refusedHost("metadata.example", resolve)).toMatch(/169\.254\.169\.254/)
    expect(await refusedHost("mapped.example", resolve)).toMatch(/192\.168\.0\.1/)
    expect(await refusedHost("mapped-public.example", resolve)).toMatch(/::ffff:8\.8\.8\.8/)
    expect(await refusedHost("translated.example", resolve)).toMatch(/::ffff:0:808:808/)
    expect(await refusedHost("nat64-local.example", resolve)).toMatch(/64:ff9b:1::808:808/)
    expect(await refusedHost("missing.example", resolve)).toMatch(/could not be resolved/)
    expect(await refusedHost("8.8.8.8", resolve)).toBeNull()
    expect(await refusedHost("foo.localhost", resolve)).toMatch(/loopback/)
  })

  it("checks again at connection time: a name that now resolves to a refused address is not connected to", async () => {
    let answer: LookupAddress[] = [{ address: "93.184.216.34", family: 4 }]
    const lookup = makeGuardedLookup(((_host: string, _options: unknown, cb: (e: null, a: LookupAddress[]) => void) =>
      cb(null, answer)) as never)
    const call = (all: boolean) =>
      new Promise<{ error: any; address: unknown }>((resolve) =>
        lookup("pay.example", { all }, (error: any, address: unknown) => resolve({ error, address }))
      )
    expect(await call(false)).toEqual({ error: null, address: "93.184.216.34" })
    expect(await call(true)).toEqual({ error: null, address: answer })
    answer = [{ address: "93.184.216.34", family: 4 }, { address: "127.0.0.1", family: 4 }]
    const refused = await call(true)
    expect(refused.error).toMatchObject({ code: "ADDRESS_NOT_ALLOWED" })
    expect(refused.error.message).toMatch(/127\.0\.0\.1/)
    for (const address of ["::ffff:8.8.8.8", "::ffff:0:808:808", "64:ff9b:1::808:808"]) {
      answer = [{ address: "93.184.216.34", family: 4 }, { address, family: 6 }]
      const error = (await call(false)).error
      expect([address, error?.code, error?.message]).toEqual([address, "ADDRESS_NOT_ALLOWED", expect.stringContaining(address)])
    }
  })
})
