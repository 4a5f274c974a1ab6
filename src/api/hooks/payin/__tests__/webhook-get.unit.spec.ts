import { GET } from "../[id]/route"

function call(id: string, providerOptions: (id: string) => unknown) {
  let status = 0
  let body: unknown
  const res = {
    status(code: number) {
      status = code
      return res
    },
    json(value: unknown) {
      body = value
      return res
    },
  }
  const req = {
    params: { id },
    scope: { resolve: () => ({ settings: { providerOptions: async (i: string) => providerOptions(i) } }) },
  }
  return (GET as any)(req, res).then(() => ({ status, body }))
}

describe("GET /hooks/payin/:id (unauthenticated)", () => {
  it("answers the same for a configured instance, one without a key and an unknown id, naming none of them", async () => {
    const instances: Record<string, unknown> = {
      default: { id: "default", apiKey: "key-0123456789", baseUrl: "https://x" },
      second: { id: "second", apiKey: undefined, baseUrl: "https://x" },
    }
    const answers = await Promise.all(["default", "second", "nope"].map((id) => call(id, (i) => instances[i] ?? null)))
    expect(answers[0]).toEqual(answers[1])
    expect(answers[1]).toEqual(answers[2])
    const text = JSON.stringify(answers)
    for (const word of ["default", "second", "nope", "pp_payin", "configured", "unknown_provider"]) {
      expect(text).not.toContain(word)
    }
  })
})
