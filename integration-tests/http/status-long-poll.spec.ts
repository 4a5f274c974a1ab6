// GET /store/payin/status held until the view changes (wait + since), and the storefront kit's real
// poller on it: a placed order, the kit polling the real store API over HTTP, the shopper paying at
// the sandbox, which sends its signed webhook to Medusa by itself; the server stores it, the worker
// (this shared process) books it, and the held request answers. Money asserted on Medusa's records.
import { request } from "undici"
import { pollPayinStatus } from "../../src/storefront/poll"
import { createPayinStoreClient } from "../../src/storefront/store-client"
import type { PayinStatusResponse } from "../../src/storefront/types"
import { storeSpec } from "../support/harness"
import { control } from "../support/sandbox"

jest.setTimeout(120_000)

const KEY = "status-long-poll-key-0123456789"

storeSpec({ key: KEY }, (h) => {
  const base = () => h.api.defaults.baseURL as string
  const get = async (query: string) => {
    const res = await request(`${base()}/store/payin/status?${query}`, { headers: { "x-publishable-api-key": h.seed.publishableKey } })
    return { status: res.statusCode, body: (await res.body.json()) as any }
  }

  it("the kit's poller shows paid with the order captured once, each answer after the first from a held request", async () => {
    const { payin, orderId, session } = await h.placedOrder()
    const client = createPayinStoreClient({ baseUrl: base(), publishableKey: h.seed.publishableKey })
    const asked: (number | undefined)[] = []
    const answers: PayinStatusResponse[] = []
    const errors: unknown[] = []
    let final!: () => void
    const done = new Promise<void>((resolve) => (final = resolve))
    const poller = pollPayinStatus(
      (wait) => {
        asked.push(wait?.wait)
        return client.status({ order_id: orderId }, wait)
      },
      {
        onUpdate: (r) => {
          answers.push(r)
          if (answers.length === 1) void control(h.sandbox, "POST", `/_sandbox/transactions/${payin.id}/pay`)
          if (r.payin?.final) final()
        },
        onError: (e) => {
          errors.push(e)
          final()
        },
      }
    )
    await done
    poller.stop()

    expect(errors).toEqual([])
    const last = answers[answers.length - 1]
    expect(last.payin).toMatchObject({ state: "paid", final: true })
    expect(last.order?.payment_status).toBe("captured")
    expect(last.long_poll?.changed).toBe(true)
    expect(asked[0]).toBeUndefined()
    expect(asked.slice(1).every((w) => w === 25)).toBe(true)
    expect(answers.slice(1).every((a) => a.long_poll)).toBe(true)
    // Medusa's records: captured once, for the order's total
    const order = await h.order(orderId)
    expect(order.payment_status).toBe("captured")
    const [payment] = await h.paymentsOf(session.id)
    expect(payment.captures).toHaveLength(1)
    expect(Number(payment.captures[0].amount)).toBe(Number(order.total))
  })

  it("answers the unchanged view at the end of the wait, and at once for a view_tag that is no longer current", async () => {
    const { orderId } = await h.placedOrder()
    const plain = await get(`order_id=${orderId}`)
    expect(plain.status).toBe(200)
    expect(plain.body.view_tag).toMatch(/^[A-Za-z0-9_-]{22}$/)
    expect(plain.body.long_poll).toBeUndefined()

    const held = await get(`order_id=${orderId}&wait=1&since=${plain.body.view_tag}`)
    expect(held.status).toBe(200)
    expect(held.body.view_tag).toBe(plain.body.view_tag)
    expect(held.body.long_poll.changed).toBe(false)
    expect(held.body.long_poll.waited_ms).toBeGreaterThanOrEqual(1000)
    expect(held.body.payin).toMatchObject({ state: "awaiting_payment", final: false })

    const stale = await get(`order_id=${orderId}&wait=25&since=not_the_current_tag`)
    expect(stale.body.long_poll.changed).toBe(true)
    expect(stale.body.long_poll.waited_ms).toBeLessThan(25_000)
    expect(stale.body.view_tag).toBe(plain.body.view_tag)
  })

  it("answers a held request as soon as the pay-in is paid at the service", async () => {
    const { payin, orderId } = await h.placedOrder()
    const { body } = await get(`order_id=${orderId}`)
    const held = get(`order_id=${orderId}&wait=25&since=${body.view_tag}`)
    await control(h.sandbox, "POST", `/_sandbox/transactions/${payin.id}/pay`)
    const answered = await held
    expect(answered.body.long_poll.changed).toBe(true)
    expect(answered.body.payin.state).toBe("paid")
    expect(answered.body.view_tag).not.toBe(body.view_tag)
  })

  it("refuses wait without since, since without wait, and a wait above 25 s with a 400 naming the parameter", async () => {
    const { orderId } = await h.placedOrder()
    const cases: [string, string][] = [
      [`order_id=${orderId}&wait=5`, "since"],
      [`order_id=${orderId}&since=abc`, "wait"],
      [`order_id=${orderId}&wait=30&since=abc`, "wait"],
      [`order_id=${orderId}&wait=soon&since=abc`, "wait"],
    ]
    for (const [query, field] of cases) {
      const res = await get(query)
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({ type: "invalid_data" })
      expect(res.body.fields.map((f: { path: string }) => f.path)).toEqual([field])
    }
  })
})
