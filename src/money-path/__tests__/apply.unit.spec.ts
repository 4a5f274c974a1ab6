import { effectRunOf } from "../apply"

describe("effectRunOf", () => {
  it("never lets the store's status poll retry an effect; Reconcile now runs it whatever its backoff; the rest when due", () => {
    expect(effectRunOf("store")).toBe("new")
    expect(effectRunOf("admin")).toBe("now")
    for (const source of ["webhook", "lookup", "authorize", "create"] as const) expect(effectRunOf(source)).toBe("due")
  })
})
