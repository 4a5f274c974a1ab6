// `npm run soak`: the production topology under shoppers and faults for a set time, then the
// auditor (README: Soak). Settings come from cli.mjs through SOAK_* variables; the report goes to
// .soak/ (report.json, report.md, logs/). The test fails on any violation.
import { mkdirSync, writeFileSync } from "fs"
import path from "path"
import { audit, collectRecords, drain, faultsAround } from "./auditor"
import { planFaults, runFaults } from "./faults"
import { soakOptions } from "./options"
import { planMerchant, runMerchant } from "./merchant"
import { PLANTS, type Planted, judgePlant, readPlanted, writePlantPlugin } from "./plants"
import { Prng } from "./prng"
import { checkoutsByKind, writeReport } from "./report"
import { runShoppers } from "./shoppers"
import { ROLES, type Topology, startTopology } from "./topology"
import { type Vitals, enableVitals, judgeVitals, readNotifications, sampleVitals, settleNotifications } from "./vitals"

const options = soakOptions()
// boot (2–3 min on 2 cores), the load, the drain (at most 3 + 2 + 1 min), the audit
jest.setTimeout((options.minutes + 15) * 60_000)

const log = (line: string) => void process.stdout.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}\n`)
let topology: Topology | undefined
let vitals: Vitals | undefined

afterAll(async () => {
  await vitals?.stop()
  if (!topology) return
  const logs = path.join(options.out, "logs")
  mkdirSync(logs, { recursive: true })
  for (const [name, text] of Object.entries(topology.logs())) writeFileSync(path.join(logs, `${name}.log`), text)
  await topology.stop()
})

const title = options.plant
  ? `the auditor reports the planted ${options.plant} and nothing else (seed ${options.seed}, ${options.minutes} min, ${options.shoppers} shoppers)`
  : `the money holds under shoppers and faults (seed ${options.seed}, ${options.minutes} min, ${options.shoppers} shoppers)`
it(title, async () => {
  const started = Date.now()
  const root = new Prng(options.seed)
  // one stream per part, forked before any is drawn from: each part's choices depend on the seed alone
  const streams = { topology: root.fork("topology"), shoppers: root.fork("shoppers"), faults: root.fork("faults"), merchant: root.fork("merchant") }
  const plant = options.plant ? writePlantPlugin(path.join(options.out, "plant"), options.plant) : null
  if (plant) log(`planting ${options.plant}: ${PLANTS[options.plant!].what}`)
  topology = await startTopology(streams.topology, log, { testPlugins: plant ? [plant.plugin] : [], databaseUrl: options.databaseUrl })
  // alerts and shopper notifications on through the admin API, then memory and health sampled every 5 s
  await enableVitals(topology, log)
  vitals = sampleVitals(topology, log)
  const booted = Date.now()

  const loadMs = options.minutes * 60_000
  const plan = planFaults(streams.faults, loadMs, { postgres: Boolean(topology.postgres) })
  const merchantPlan = planMerchant(streams.merchant.fork("plan"), loadMs)
  log(`load for ${options.minutes} min: ${options.shoppers} shoppers, ${plan.length} faults and ${merchantPlan.length} merchant actions planned`)
  const faults = runFaults(topology, plan, booted, log)
  const merchant = runMerchant(topology, merchantPlan, streams.merchant.fork("acts"), booted, log)
  const t = topology
  let supervising = Promise.resolve()
  const supervisor = setInterval(() => (supervising = supervising.then(() => t.supervise()).catch((e) => log(`restart failed: ${e}`))), 5_000)
  let run
  try {
    run = await runShoppers(topology, streams.shoppers, options.shoppers, booted + loadMs, log)
  } finally {
    clearInterval(supervisor)
    await faults.stop()
    await merchant.stop()
    await supervising
  }
  const loaded = Date.now()
  // every process up again (a restart that failed during the load is tried once more)
  for (const role of ROLES) await topology.restart(role)

  const drained = await drain(topology, log)
  const records = await collectRecords(topology, run.checkouts)
  const answered = Object.entries(run.answers).reduce((n, [status, count]) => (status === "network" ? n : n + count), 0)
  const result = audit(records, { serverErrors: run.serverErrors, faults: faults.records, answered })
  result.violations = faultsAround(result.violations, records, faults.records)
  // the notifications the last effects and health checks owe, then what Medusa recorded
  await settleNotifications(topology.databaseUrl)
  const notifications = await readNotifications(topology.databaseUrl)
  const vitalsReport = judgeVitals(await vitals.stop(), notifications, records, faults.records, merchant.records)
  const planted: Planted | null = plant ? readPlanted(plant.marker) : null
  const plantProblems = options.plant ? judgePlant(options.plant, planted, result.violations) : []

  const paths = writeReport(options.out, {
    seed: options.seed,
    minutes: options.minutes,
    shoppers: options.shoppers,
    startedAt: new Date(started).toISOString(),
    wallSeconds: Math.round((Date.now() - started) / 1000),
    bootSeconds: Math.round((booted - started) / 1000),
    loadSeconds: Math.round((loaded - booted) / 1000),
    drain: drained,
    checkouts: checkoutsByKind(run.checkouts),
    aborts: run.checkouts.flatMap((c) => (c.aborted ? [`${c.kind} #${c.shopper}.${c.index}: ${c.aborted}`] : [])),
    storeAnswers: run.answers,
    serverErrors: run.serverErrors,
    balancer: topology.balancer,
    faults: faults.records,
    merchant: merchant.records,
    audit: result,
    payins: records.length,
    records,
    exits: topology.exits,
    vitals: vitalsReport,
    ...(options.plant ? { plant: { name: options.plant, what: PLANTS[options.plant].what, planted, problems: plantProblems } } : {}),
  })
  log(`report: ${paths.md}`)
  if (options.plant) expect(plantProblems).toEqual([])
  else expect(result.violations).toEqual([])
  expect(vitalsReport.violations).toEqual([])
})
