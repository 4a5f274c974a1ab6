// What the plugin relies on of Medusa beyond its public API (src/medusa/README.md), each asserted
// by name on this Medusa (2.21.2, the repository's): a Medusa upgrade that moves one fails the
// test named after it. The same check runs on 2.17.2, the oldest supported version, in
// integration-tests/package/medusa-oldest.spec.ts (through the packaged `medusa exec` script).
import { type InternalCheck, MEDUSA_INTERNALS, type MedusaInternal, checkMedusa } from "../../src/medusa"
import { appSpec } from "../support/harness"

jest.setTimeout(120_000)

appSpec(({ getContainer, sql }) => {
  let results: InternalCheck[]
  let leftBehind: number
  beforeAll(async () => {
    results = await checkMedusa(getContainer())
    const { rows } = await sql("select count(*)::int as n from payment_collection where amount = 1.23 and currency_code = 'usd' and deleted_at is null")
    leftBehind = rows[0].n
  })

  it.each(Object.keys(MEDUSA_INTERNALS) as MedusaInternal[])("%s", (internal) => {
    const result = results.find((r) => r.internal === internal)
    expect({ internal, ok: result?.ok, detail: result?.detail }).toMatchObject({ internal, ok: true })
  })

  it("the check leaves nothing behind: its throwaway payment collection is deleted", () => {
    expect(leftBehind).toBe(0)
  })

  it("this app keeps its locks in locking-postgres's table, so the locking check ran for real", () => {
    expect(results.find((r) => r.internal === "locking.table")?.detail).toBe("id, owner_id, expiration")
  })
})
