import { envValue, storeEnvLines, storeWebhookUrl } from "../store-env"

describe("--store-url", () => {
  it("points webhooks at the default instance's route of the store, keeping a path prefix", () => {
    expect(storeWebhookUrl("http://localhost:9000")).toBe("http://localhost:9000/hooks/payin/default")
    expect(storeWebhookUrl("http://localhost:9000/")).toBe("http://localhost:9000/hooks/payin/default")
    expect(storeWebhookUrl("https://shop.example/medusa//")).toBe("https://shop.example/medusa/hooks/payin/default")
    expect(storeWebhookUrl("http://[::1]:9000")).toBe("http://[::1]:9000/hooks/payin/default")
  })

  it("refuses what is not a store's base URL", () => {
    expect(() => storeWebhookUrl("localhost:9000")).toThrow(/http\(s\) URL/)
    expect(() => storeWebhookUrl("9000")).toThrow(/http\(s\) URL/)
    expect(() => storeWebhookUrl("ftp://localhost:9000")).toThrow(/http\(s\) URL/)
    expect(() => storeWebhookUrl("http://localhost:9000/?x=1")).toThrow(/no query/)
    expect(() => storeWebhookUrl("http://localhost:9000/#x")).toThrow(/no query/)
    expect(() => storeWebhookUrl("http://user:pw@localhost:9000")).toThrow(/credentials/)
  })

  it("prints the store's .env lines, quoting what dotenv would otherwise cut", () => {
    expect(storeEnvLines({ apiKey: "sandbox_key-1", baseUrl: "http://127.0.0.1:4010", webhookUrl: "http://localhost:9000/hooks/payin/default" })).toEqual([
      "webhooks go to http://localhost:9000/hooks/payin/default",
      "# paste into the store's .env (then restart `medusa develop`):",
      "PAYIN_API_KEY=sandbox_key-1",
      "PAYIN_BASE_URL=http://127.0.0.1:4010",
    ])
    expect(envValue("http://[::1]:4010")).toBe("http://[::1]:4010")
    expect(envValue("k$HOME")).toBe("'k$HOME'")
    expect(envValue("key with #hash")).toBe("'key with #hash'")
    expect(() => envValue("it's")).toThrow(/cannot be written/)
    expect(() => envValue("a\nb")).toThrow(/cannot be written/)
  })
})
