import { UNKNOWN_BASE_URL, webhookBaseUrl } from "../webhook-url"

const request = (headers: Record<string, string>, config: Record<string, unknown> = {}, encrypted = false) => ({
  headers,
  socket: { encrypted } as any,
  scope: { resolve: () => config },
})

const cors = { projectConfig: { http: { adminCors: "https://admin.shop.example,/vercel\\.app$/", authCors: "https://api.shop.example", storeCors: "" } } }

describe("webhookBaseUrl: no request header chooses the host shown to the admin", () => {
  it("uses Medusa's configured backend URL whatever the request says", () => {
    const req = request(
      { host: "evil.example", "x-forwarded-host": "evil.example", "x-forwarded-proto": "http" },
      { admin: { backendUrl: "https://api.shop.example/" } }
    )
    expect(webhookBaseUrl(req)).toBe("https://api.shop.example")
  })

  it("never reads X-Forwarded-Host or X-Forwarded-Proto", () => {
    const req = request({ host: "api.shop.example", "x-forwarded-host": "evil.example", "x-forwarded-proto": "http" }, cors)
    expect(webhookBaseUrl(req)).toBe("https://api.shop.example")
    const loopback = request({ host: "127.0.0.1:9000", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" })
    expect(webhookBaseUrl(loopback)).toBe("http://127.0.0.1:9000")
  })

  it("uses the request's Host only when the store's config names it (CORS origins) or it is loopback", () => {
    expect(webhookBaseUrl(request({ host: "admin.shop.example" }, cors))).toBe("https://admin.shop.example")
    expect(webhookBaseUrl(request({ host: "localhost:9000" }, { admin: { backendUrl: "/" } }))).toBe("http://localhost:9000")
    expect(webhookBaseUrl(request({ host: "[::1]:9000" }, {}, true))).toBe("https://[::1]:9000")
    // a Host nobody configured: a placeholder, not the header
    expect(webhookBaseUrl(request({ host: "evil.example" }, cors))).toBe(UNKNOWN_BASE_URL)
    expect(webhookBaseUrl(request({ host: "evil.example/x@y" }, cors))).toBe(UNKNOWN_BASE_URL)
    expect(webhookBaseUrl(request({}, cors))).toBe(UNKNOWN_BASE_URL)
  })
})
