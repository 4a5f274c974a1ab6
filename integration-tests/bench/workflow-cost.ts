// What wrapping the webhook's apply path in a Medusa workflow would cost per webhook: the same
// three pieces of work (lock, record, effects; each a trivial `select 1` through the container's
// `__pg_connection__`) run (a) as a plain async function and (b) as a workflow of three steps
// built with createWorkflow/createStep, run with `workflow(container).run({ input })` on the
// test app's default in-memory engine, not stored (no `store: true`, no async steps).
import { MedusaContainer } from "@medusajs/framework/types"
import { StepResponse, WorkflowResponse, createStep, createWorkflow } from "@medusajs/framework/workflows-sdk"

type Input = { i: number }

const selectOne = async (container: MedusaContainer): Promise<void> => {
  await (container.resolve("__pg_connection__") as any).raw("select 1")
}
const lock = (container: MedusaContainer, _input: Input) => selectOne(container)
const record = (container: MedusaContainer, _input: Input) => selectOne(container)
const effects = (container: MedusaContainer, _input: Input) => selectOne(container)

/** (a) The work as a plain async function. */
export async function applyPlain(container: MedusaContainer, input: Input): Promise<number> {
  await lock(container, input)
  await record(container, input)
  await effects(container, input)
  return input.i
}

const lockStep = createStep("bench-apply-lock", async (input: Input, { container }) => {
  await lock(container, input)
  return new StepResponse(input.i)
})
const recordStep = createStep("bench-apply-record", async (input: Input, { container }) => {
  await record(container, input)
  return new StepResponse(input.i)
})
const effectsStep = createStep("bench-apply-effects", async (input: Input, { container }) => {
  await effects(container, input)
  return new StepResponse(input.i)
})

/** (b) The same work as a three-step workflow (steps run one after the other). */
export const applyWorkflow = createWorkflow("bench-apply-payin-event", (input: Input) => {
  lockStep(input)
  recordStep(input)
  const done = effectsStep(input)
  return new WorkflowResponse(done)
})

const noopA = createStep("bench-noop-a", async (input: Input) => new StepResponse(input.i))
const noopB = createStep("bench-noop-b", async (input: Input) => new StepResponse(input.i))
const noopC = createStep("bench-noop-c", async (input: Input) => new StepResponse(input.i))

/** The orchestration alone: three steps that do nothing. */
export const noopWorkflow = createWorkflow("bench-noop-3-steps", (input: Input) => {
  noopA(input)
  noopB(input)
  return new WorkflowResponse(noopC(input))
})
