import { perService } from "../per-service"

/** What a workflow's container hands out for a module service (orchestration's contextualizedMedusaModules): a new Proxy per resolve, functions wrapped. */
const asWorkflowResolves = <T extends object>(service: T): T =>
  new Proxy(service, {
    get: (target, prop) => {
      const value = (target as any)[prop]
      return typeof value === "function" ? (...args: unknown[]) => value.apply(target, args) : value
    },
  })

describe("perService", () => {
  const KEY = Symbol("test-state")

  it("gives every resolve of one service, wrapped or not, the same state, made once", () => {
    const service = { list: () => [] }
    let made = 0
    const create = () => ({ made: ++made })
    const direct = perService(service, KEY, create)
    expect(perService(asWorkflowResolves(service), KEY, create)).toBe(direct)
    expect(perService(asWorkflowResolves(service), KEY, create)).toBe(direct)
    expect(made).toBe(1)
  })

  it("first made through a wrapper: the service itself holds it", () => {
    const service = {}
    const state = perService(asWorkflowResolves(service), KEY, () => new Map())
    expect(perService(service, KEY, () => new Map())).toBe(state)
  })

  it("keeps a function as it is (a wrapper would make a new one per read) and falsy values", () => {
    const service = {}
    const wake = () => undefined
    expect(perService(asWorkflowResolves(service), KEY, () => wake)).toBe(wake)
    expect(perService(asWorkflowResolves(service), KEY, () => wake)).toBe(wake)
    const other = {}
    expect(perService(other, KEY, () => false)).toBe(false)
    expect(perService(asWorkflowResolves(other), KEY, () => true)).toBe(false)
  })

  it("services do not share state", () => {
    expect(perService({}, KEY, () => ({}))).not.toBe(perService({}, KEY, () => ({})))
  })
})
