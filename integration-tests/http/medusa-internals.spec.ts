// What the plugin relies on of Medusa beyond its public API (src/medusa/README.md), each asserted
// by name on this Medusa (2.21.2, the repository's): a Medusa upgrade that moves one fails the
// test named after it. The same check runs on 2.17.2, the oldest supported version, in
// integration-tests/package/medusa-oldest.spec.ts (through the packaged `medusa exec` script).
import { StepResponse, WorkflowResponse, createStep, createWorkflow } from "@medusajs/framework/workflows-sdk"
import { type InternalCheck, MEDUSA_INTERNALS, type MedusaInternal, checkMedusa } from "../../src/medusa"
import { InboxDrain, inboxDrain } from "../../src/money-path/inbox"
import { appSpec } from "../support/harness"

jest.setTimeout(120_000)

// what a scheduled job gets: a workflow step's container
const drainInStep = createStep("payin-spec-drain-in-step", async (_input: void, { container }) => {
  const drain = inboxDrain(container)
  seenInStep.push(drain)
  return new StepResponse(drain instanceof InboxDrain)
})
const seenInStep: InboxDrain[] = []
const drainOfJob = createWorkflow("payin-spec-drain-of-job", () => new WorkflowResponse(drainInStep()))

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

  it("a scheduled job's container, a subscriber's and the app's reach one webhook drain (regression: the job made one of its own every 5 s, so drain() could return while the other applied)", async () => {
    await drainOfJob(getContainer()).run()
    await drainOfJob(getContainer()).run()
    expect(seenInStep).toHaveLength(2)
    // compared here: a failing toBe would print the drain, and the container in it throws on jest's inspection
    const app = inboxDrain(getContainer())
    expect({ jobIsApps: seenInStep[0] === app, nextRunToo: seenInStep[1] === app }).toEqual({ jobIsApps: true, nextRunToo: true })
  })

  it("the check leaves nothing behind: its throwaway payment collection is deleted", () => {
    expect(leftBehind).toBe(0)
  })

  it("this app keeps its locks in locking-postgres's table, so the locking check ran for real", () => {
    expect(results.find((r) => r.internal === "locking.table")?.detail).toBe("id, owner_id, expiration")
  })
})
