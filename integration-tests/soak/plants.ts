// Bugs the soak can plant (`--plant <name>`) to prove the auditor fails when the money is wrong.
// A plant is never a switch in production code: it is a test-only plugin of the test app (the
// app's PAYIN_APP_TEST_PLUGINS, as the production-topology spec's probe), whose subscriber does
// something wrong to Medusa's records from outside the plugin, once, and writes down what it did.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "fs"
import path from "path"
import type { Invariant, Violation } from "./auditor"

export type Planted = { payinId: string; ledgerId: string; orderId: string; paymentId: string; amount: number; at: number }

type Plant = {
  what: string
  /** The invariants the auditor must report for the planted pay-in (all of them). */
  required: Invariant[]
  /** The other invariants the same bug may also break on that pay-in (none elsewhere). */
  alsoAllowed: Invariant[]
  /** The subscriber's source (CommonJS; it runs inside Medusa, so it reaches Medusa only through the container). */
  subscriber(marker: string): string
}

export const PLANTS = {
  double_capture: {
    what:
      "on the first payin.captured event (the worker), a second Capture of the Payment's captured amount and its order transaction, " +
      "written through Medusa's payment and order modules past the provider: a capture of more than arrived",
    required: ["captured_equals_arrived", "captured_once"],
    alsoAllowed: ["order_records_agree"],
    subscriber: (marker) => `const fs = require("fs")
const MARKER = ${JSON.stringify(marker)}
exports.default = async function soakPlantDoubleCapture({ event, container }) {
  const d = (event && event.data) || {}
  if (!d.order_id || !d.session_id) return
  let fd
  try {
    fd = fs.openSync(MARKER, "wx") // once per run, whichever process or restart comes first
  } catch {
    return
  }
  try {
    const payment = container.resolve("payment")
    const [p] = await payment.listPayments({ payment_session_id: d.session_id }, { relations: ["captures"] })
    if (!p) throw new Error("no payment for session " + d.session_id)
    const captured = (p.captures || []).reduce((sum, c) => sum + Number(c.amount), 0)
    if (!(captured > 0)) throw new Error("nothing captured on " + p.id)
    const [capture] = await payment.createCaptures([{ payment: p.id, amount: captured, created_by: "soak-plant" }])
    await container.resolve("order").addOrderTransactions({
      order_id: d.order_id, amount: captured, currency_code: p.currency_code, reference: "capture", reference_id: capture.id,
    })
    fs.writeSync(fd, JSON.stringify({ payinId: d.service_id, ledgerId: d.id, orderId: d.order_id, paymentId: p.id, amount: captured, at: Date.now() }))
    fs.closeSync(fd)
  } catch (error) {
    // not planted (a fault at that moment): the next captured event tries
    fs.closeSync(fd)
    fs.rmSync(MARKER, { force: true })
    console.warn("soak plant double_capture not planted yet: " + (error && error.message))
  }
}
exports.config = { event: "payin.captured" }
`,
  },
} satisfies Record<string, Plant>

export type PlantName = keyof typeof PLANTS
export const PLANT_NAMES = Object.keys(PLANTS) as PlantName[]

/** Writes the plant's plugin folder under `dir` (emptied first); returns the plugin's path and the marker file. */
export function writePlantPlugin(dir: string, name: PlantName): { plugin: string; marker: string } {
  rmSync(dir, { recursive: true, force: true })
  const plugin = path.join(dir, "plugin")
  const marker = path.join(dir, "planted.json")
  const subscribers = path.join(plugin, ".medusa", "server", "src", "subscribers")
  mkdirSync(subscribers, { recursive: true })
  writeFileSync(path.join(plugin, "package.json"), JSON.stringify({ name: `payin-soak-plant-${name.replace(/_/g, "-")}`, version: "0.0.0", main: "index.js" }))
  writeFileSync(path.join(plugin, "index.js"), "")
  writeFileSync(path.join(subscribers, `plant-${name}.js`), PLANTS[name].subscriber(marker))
  return { plugin, marker }
}

/** What the plant wrote down once it did its work (null: it never did). */
export function readPlanted(marker: string): Planted | null {
  if (!existsSync(marker)) return null
  const text = readFileSync(marker, "utf8")
  return text ? (JSON.parse(text) as Planted) : null
}

/**
 * Whether the auditor reported exactly the planted bug: every required invariant violated for the
 * planted pay-in, and no violation but those (and the plant's allowed ones) on that pay-in. Pure;
 * answers the problems, none when the auditor did its job.
 */
export function judgePlant(name: PlantName, planted: Planted | null, violations: readonly Violation[]): string[] {
  if (!planted) return [`the plant ${name} never did its work (no planted.json)`]
  const plant: Plant = PLANTS[name]
  const problems: string[] = []
  const on = violations.filter((v) => v.payinId === planted.payinId)
  for (const inv of plant.required) {
    if (!on.some((v) => v.invariant === inv)) problems.push(`no ${inv} violation for the planted pay-in ${planted.payinId} (order ${planted.orderId})`)
  }
  for (const v of violations) {
    if (v.payinId !== planted.payinId) problems.push(`a violation beside the plant: ${v.invariant} ${v.payinId}: ${v.detail}`)
    else if (![...plant.required, ...plant.alsoAllowed].includes(v.invariant)) problems.push(`an unexpected kind for the plant: ${v.invariant}: ${v.detail}`)
  }
  return problems
}
