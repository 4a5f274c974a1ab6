import { earlierReturnUrls } from "../pay-again/return-urls"

describe("earlierReturnUrls", () => {
  const allowed = ["https://shop.example"]
  it("takes the newest pay-in's kept URLs that are still allowed, key by key from that pay-in", () => {
    const rows = [
      { return_urls: null },
      { return_urls: { success_url: "https://shop.example/ok?cart_id=2" } },
      { return_urls: { success_url: "https://shop.example/ok?cart_id=1", failure_url: "https://shop.example/no" } },
    ]
    expect(earlierReturnUrls(rows, allowed)).toEqual({ success_url: "https://shop.example/ok?cart_id=2" })
  })
  it("leaves out a URL whose origin is no longer allowed, and gives nothing when none is kept", () => {
    expect(earlierReturnUrls([{ return_urls: { success_url: "https://old.example/ok" } }], allowed)).toEqual({})
    expect(earlierReturnUrls([{ return_urls: null }], allowed)).toEqual({})
    expect(earlierReturnUrls([], allowed)).toEqual({})
  })
})
