// cancelPayment answers "canceled" only once the ledger has the cancel: an error reading or writing
// the ledger is thrown, so Medusa records no cancel and its caller (order cancel, a compensation) retries.
import { PayinProviderService } from "../service"

const KEY = "unit-key-0123456789abcdef"

function setUp(ledger: Record<string, (...args: any[]) => Promise<unknown>>) {
  const ended: string[] = []
  const logged: string[] = []
  const cradle = {
    payin: {
      ledger: {
        findBy: async () => null,
        get: async () => null,
        markEndedByStore: async (id: string) => void ended.push(id),
        ...ledger,
      },
    },
    logger: { info: (m: string) => logged.push(m), warn: (m: string) => logged.push(m), error: (m: string) => logged.push(m) },
  }
  const provider = new PayinProviderService(cradle, { id: "default", apiKey: KEY, baseUrl: "https://service.example" })
  return { provider, ended, logged }
}

const data = { session_id: "payses_1", payin_ledger_id: "payintx_1" }
const live = { id: "payintx_1", provider_id: "pp_payin_default", status: "active", paid_at: null }

describe("cancelPayment", () => {
  it("records the store's cancel on the pay-in, then answers canceled", async () => {
    const t = setUp({ findBy: async () => live })
    expect(await t.provider.cancelPayment({ data })).toEqual({ data: { ...data, payin_canceled: true } })
    expect(t.ended).toEqual(["payintx_1"])
  })

  it("throws when the ledger cannot be read: no canceled answer, nothing recorded", async () => {
    const t = setUp({
      findBy: async () => {
        throw new Error(`connect ECONNREFUSED 127.0.0.1:5432 (${KEY})`)
      },
    })
    const error = await t.provider.cancelPayment({ data }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toMatch(/could not be read.*not canceled/)
    expect((error as Error).message).not.toContain(KEY)
    expect(t.ended).toEqual([])
    expect(t.logged.join("\n")).toMatch(/ECONNREFUSED/)
    expect(t.logged.join("\n")).not.toContain(KEY)
  })

  it("throws when the cancel cannot be recorded", async () => {
    const t = setUp({
      findBy: async () => live,
      markEndedByStore: async () => {
        throw new Error("deadlock detected")
      },
    })
    await expect(t.provider.cancelPayment({ data })).rejects.toThrow(/could not be recorded.*not canceled/)
  })

  it("refuses a paid pay-in; answers canceled when no pay-in stands for the data", async () => {
    const paid = setUp({ findBy: async () => ({ ...live, status: "closed", paid_at: new Date() }) })
    await expect(paid.provider.cancelPayment({ data })).rejects.toMatchObject({ code: "payin_paid" })
    expect(paid.ended).toEqual([])
    const none = setUp({})
    expect(await none.provider.cancelPayment({ data })).toEqual({ data: { ...data, payin_canceled: true } })
  })
})
