import { BANKS_FRESH_MS, BANKS_RETRY_AFTER_MS, BANKS_STALE_MS, BanksCache, BanksUnavailableError, banksCacheKey, freshness } from "../banks-cache"

const list = (name: string) => ({ banks: [{ name, methods: ["card"] }], currencies: ["RUB"] })

function clock() {
  let t = 1_000_000
  return { now: () => t, advance: (ms: number) => (t += ms) }
}

describe("freshness", () => {
  it("is fresh for a minute, stale up to 15 minutes, then expired", () => {
    expect(freshness(0, BANKS_FRESH_MS - 1)).toBe("fresh")
    expect(freshness(0, BANKS_FRESH_MS)).toBe("stale")
    expect(freshness(0, BANKS_STALE_MS - 1)).toBe("stale")
    expect(freshness(0, BANKS_STALE_MS)).toBe("expired")
  })
})

describe("banksCacheKey", () => {
  it("changes with the base URL and the key, and never contains the key", () => {
    const key = banksCacheKey("default", "http://a", "secret-api-key-1")
    expect(key).not.toContain("secret-api-key-1")
    expect(banksCacheKey("default", "http://a", "secret-api-key-1")).toBe(key)
    expect(banksCacheKey("default", "http://b", "secret-api-key-1")).not.toBe(key)
    expect(banksCacheKey("default", "http://a", "secret-api-key-2")).not.toBe(key)
  })
})

describe("BanksCache", () => {
  it("serves a fresh list from memory and fetches again after a minute", async () => {
    const c = clock()
    const cache = new BanksCache(c.now)
    const fetch = jest.fn().mockResolvedValueOnce(list("one")).mockResolvedValueOnce(list("two"))
    expect((await cache.get("default", "k", fetch)).snapshot.banks[0].name).toBe("one")
    c.advance(BANKS_FRESH_MS - 1)
    expect((await cache.get("default", "k", fetch)).snapshot.banks[0].name).toBe("one")
    expect(fetch).toHaveBeenCalledTimes(1)
    c.advance(1)
    const again = await cache.get("default", "k", fetch)
    expect(again).toMatchObject({ stale: false, snapshot: { banks: [{ name: "two" }], fetchedAt: c.now() } })
    expect(fetch).toHaveBeenCalledTimes(2)
  })

  it("makes one fetch for concurrent requests", async () => {
    const cache = new BanksCache(clock().now)
    let release!: (v: unknown) => void
    const fetch = jest.fn(() => new Promise<any>((r) => (release = r)))
    const waiting = Promise.all([1, 2, 3].map(() => cache.get("default", "k", fetch)))
    release(list("one"))
    const answers = await waiting
    expect(fetch).toHaveBeenCalledTimes(1)
    expect(answers.map((a) => a.snapshot.banks[0].name)).toEqual(["one", "one", "one"])
  })

  it("serves the last list as stale while the service fails, up to 15 minutes, then gives up", async () => {
    const c = clock()
    const cache = new BanksCache(c.now)
    const onError = jest.fn()
    await cache.get("default", "k", async () => list("one"))
    c.advance(BANKS_FRESH_MS)
    const failing = jest.fn().mockRejectedValue(new Error("down"))
    const stale = await cache.get("default", "k", failing, onError)
    expect(stale).toMatchObject({ stale: true, snapshot: { banks: [{ name: "one" }] } })
    expect(onError).toHaveBeenCalledTimes(1)
    // right after a failure the service is left alone: the stale list comes at once
    expect((await cache.get("default", "k", failing, onError)).stale).toBe(true)
    expect(failing).toHaveBeenCalledTimes(1)
    c.advance(BANKS_RETRY_AFTER_MS)
    expect((await cache.get("default", "k", failing, onError)).stale).toBe(true)
    expect(failing).toHaveBeenCalledTimes(2)
    c.advance(BANKS_STALE_MS)
    await expect(cache.get("default", "k", failing, onError)).rejects.toBeInstanceOf(BanksUnavailableError)
  })

  it("fails with nothing cached, and never serves another key's list", async () => {
    const c = clock()
    const cache = new BanksCache(c.now)
    const failing = jest.fn().mockRejectedValue(new Error("down"))
    await expect(cache.get("default", "k", failing)).rejects.toBeInstanceOf(BanksUnavailableError)
    await cache.get("default", "k1", async () => list("old account"))
    // the admin changed the key or base URL: fetched again at once, and the old list is not a fallback
    await expect(cache.get("default", "k2", failing)).rejects.toBeInstanceOf(BanksUnavailableError)
    const fresh = await cache.get("default", "k3", async () => list("new account"))
    expect(fresh.snapshot.banks[0].name).toBe("new account")
  })

  it("recovers when the service answers again", async () => {
    const c = clock()
    const cache = new BanksCache(c.now)
    await expect(cache.get("default", "k", jest.fn().mockRejectedValue(new Error("down")))).rejects.toThrow()
    c.advance(BANKS_RETRY_AFTER_MS)
    expect((await cache.get("default", "k", async () => list("back"))).snapshot.banks[0].name).toBe("back")
  })

  it("keeps instances apart and hands the previous list to the fetch", async () => {
    const c = clock()
    const cache = new BanksCache(c.now)
    await cache.get("default", "k", async () => list("one"))
    await cache.get("second", "k", async () => list("two"))
    expect((await cache.get("default", "k", jest.fn())).snapshot.banks[0].name).toBe("one")
    c.advance(BANKS_FRESH_MS)
    const fetch = jest.fn().mockResolvedValue(list("three"))
    await cache.get("second", "k", fetch)
    expect(fetch.mock.calls[0][0]).toMatchObject({ banks: [{ name: "two" }], currencies: ["RUB"] })
  })
})
