// The soak's report: report.json (everything, for tools) and report.md (a short table for people).
import { mkdirSync, writeFileSync } from "fs"
import path from "path"
import { type AuditResult, type DrainReport, INVARIANTS, type Invariant, type PayinRecords, type Violation } from "./auditor"
import type { FaultRecord } from "./faults"
import type { ActionRecord } from "./merchant"
import type { Planted } from "./plants"
import { CHECKOUT_KINDS, type Checkout, type ServerError, type StoreAnswers } from "./shoppers"
import type { BalancerStats } from "./topology"
import { VITALS, type Vital, type VitalsReport } from "./vitals"

export type SoakReport = {
  seed: number
  minutes: number
  shoppers: number
  startedAt: string
  wallSeconds: number
  bootSeconds: number
  loadSeconds: number
  drain: DrainReport
  checkouts: Record<string, { begun: number; placed: number; payFirst: number; aborted: number }>
  aborts: string[]
  storeAnswers: StoreAnswers
  /** The store API's 5xx answers (the first 500). */
  serverErrors: ServerError[]
  balancer: BalancerStats
  faults: FaultRecord[]
  /** The merchants' actions through the admin API, with their times and answers. */
  merchant: ActionRecord[]
  audit: AuditResult & { violations: Violation[] }
  payins: number
  /** The three records of every pay-in, as the auditor compared them. */
  records: PayinRecords[]
  /** Processes that exited by themselves (not a fault's SIGKILL). */
  exits: string[]
  /** A planted bug (--plant): what it did, and whether the auditor reported exactly it (no problems). */
  plant?: { name: string; what: string; planted: Planted | null; problems: string[] }
  /** Memory, health alerts and shopper notifications (soak/vitals.ts). */
  vitals?: VitalsReport
}

export function checkoutsByKind(checkouts: readonly Checkout[]): SoakReport["checkouts"] {
  const out: SoakReport["checkouts"] = {}
  for (const kind of CHECKOUT_KINDS) {
    const of = checkouts.filter((c) => c.kind === kind)
    out[kind] = {
      begun: of.length,
      placed: of.filter((c) => c.orderId).length,
      payFirst: of.filter((c) => c.payFirst).length,
      aborted: of.filter((c) => c.aborted).length,
    }
  }
  return out
}

const time = (ms?: number) => (ms === undefined ? "–" : new Date(ms).toISOString().slice(11, 19))
const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ")

export function markdown(r: SoakReport): string {
  const lines: string[] = []
  const total = Object.values(r.checkouts).reduce((a, k) => ({ begun: a.begun + k.begun, placed: a.placed + k.placed, payFirst: a.payFirst + k.payFirst, aborted: a.aborted + k.aborted }), {
    begun: 0,
    placed: 0,
    payFirst: 0,
    aborted: 0,
  })
  const violations = r.audit.violations.length
  lines.push(`# Soak: seed ${r.seed}, ${r.minutes} min, ${r.shoppers} shoppers${r.plant ? `, planted ${r.plant.name}` : ""}`)
  lines.push("")
  if (r.plant) {
    const p = r.plant.planted
    lines.push(
      `**Planted bug \`${r.plant.name}\`**: ${r.plant.what}. ` +
        (p ? `Planted on pay-in ${p.payinId} (order ${p.orderId}, payment ${p.paymentId}, ${(p.amount).toFixed(2)}) at ${time(p.at)}. ` : "It never did its work. ") +
        (r.plant.problems.length ? `The auditor did NOT report exactly it: ${r.plant.problems.map(cell).join("; ")}` : "The auditor reported exactly it, and nothing else."),
      ""
    )
  }
  lines.push(
    `Started ${r.startedAt}; wall ${r.wallSeconds} s (boot ${r.bootSeconds} s, load ${r.loadSeconds} s, drain ${Math.round((r.drain.webhooksIdleMs + r.drain.quietMs + r.drain.quietAfterMs + (r.drain.notificationsMs ?? 0)) / 1000)} s). ` +
      `${r.payins} pay-ins at the service, ${total.placed} orders, ${r.faults.filter((f) => f.startedAt).length} faults. **${violations} violation${violations === 1 ? "" : "s"}.**`
  )
  lines.push("")
  lines.push("| checkout | begun | orders placed | paid before completing | aborted |")
  lines.push("|---|---|---|---|---|")
  for (const [kind, k] of Object.entries(r.checkouts)) lines.push(`| ${kind} | ${k.begun} | ${k.placed} | ${k.payFirst} | ${k.aborted} |`)
  lines.push(`| **all** | ${total.begun} | ${total.placed} | ${total.payFirst} | ${total.aborted} |`)
  lines.push("")
  lines.push(`Store API answers: ${Object.entries(r.storeAnswers).sort().map(([s, n]) => `${s}: ${n}`).join(", ")}. ` +
    `Webhooks through the balancer: ${r.balancer.forwarded} forwarded, ${r.balancer.duplicated} duplicated, ${r.balancer.refused} refused (no server up), ${r.balancer.dropped} dropped and ${r.balancer.broken} refused by a fault. ` +
    `Drain: Reconcile now for ${r.drain.reconciledNow} pay-ins; left at the end: ${r.drain.left.inbox} inbox entries, ${r.drain.left.effects} effects, ${r.drain.left.notifications ?? 0} notifications owed. ` +
    `Money: ${r.audit.money.payinsPaid} pay-ins paid (${r.audit.money.late} after their window, ${r.audit.money.lateCaptured} of them captured), ` +
    `${(r.audit.money.arrived / 100).toFixed(2)} arrived, ${(r.audit.money.captured / 100).toFixed(2)} captured.`)
  if (r.serverErrors.length) {
    const by = new Map<string, number>()
    for (const e of r.serverErrors) by.set(`${e.request} ${e.status}`, (by.get(`${e.request} ${e.status}`) ?? 0) + 1)
    lines.push("", `Store API 5xx answers (report.json: serverErrors, with times and bodies): ${[...by].map(([k, n]) => `${k} ×${n}`).join(", ")}.`)
  }
  const flagCounts = (m: Record<string, number>) => Object.entries(m).map(([f, n]) => `${f} ×${n}`).join(", ") || "none"
  lines.push("", `Flags (the README's rules against the ledger): missing ${flagCounts(r.audit.flags.missing)}; unexpected ${flagCounts(r.audit.flags.unexpected)}.`)
  const known = Object.entries(r.audit.serverErrors.known)
  lines.push(
    "",
    `Store API 5xx by the fault log: ${r.audit.serverErrors.allowed} allowed (the README's 503 in a fault), ` +
      `${known.reduce((n, [, c]) => n + c, 0)} Medusa core's own around a restart${known.length ? ` (${known.map(([w, n]) => `${w}: ${n}`).join(", ")})` : ""}, ` +
      `${r.audit.serverErrors.violations} outside.`
  )
  if (r.exits.length) lines.push("", `Processes that exited by themselves: ${r.exits.join("; ")}.`)
  lines.push("")
  lines.push("| fault | lane | began | ended | seconds | note |")
  lines.push("|---|---|---|---|---|---|")
  for (const f of r.faults) {
    const secs = f.startedAt && f.endedAt ? ((f.endedAt - f.startedAt) / 1000).toFixed(1) : "–"
    const how = [f.probability !== undefined && `probability ${f.probability}`, f.delayMs !== undefined && `delay ${f.delayMs} ms`, f.broken && `answers ${f.broken}`].filter(Boolean)
    const note = f.skipped ?? f.error ?? how.join(", ")
    lines.push(`| ${f.kind} | ${f.lane} | ${time(f.startedAt)} | ${time(f.endedAt)} | ${secs} | ${cell(note)} |`)
  }
  lines.push("")
  lines.push("| merchant action | began | seconds | target | answer |")
  lines.push("|---|---|---|---|---|")
  for (const a of r.merchant) {
    const secs = a.startedAt && a.endedAt ? ((a.endedAt - a.startedAt) / 1000).toFixed(1) : "–"
    lines.push(`| ${a.kind} | ${time(a.startedAt)} | ${secs} | ${cell(a.target ?? "–")} | ${cell(a.skipped ?? a.error ?? a.answer ?? "–")} |`)
  }
  lines.push("")
  lines.push("| invariant | checks | violations |")
  lines.push("|---|---|---|")
  for (const [name, c] of Object.entries(r.audit.invariants) as [Invariant, { checks: number; violations: number }][]) {
    lines.push(`| ${name}: ${INVARIANTS[name]} | ${c.checks} | ${c.violations} |`)
  }
  if (r.vitals) lines.push(...vitalsMarkdown(r.vitals))
  if (violations) {
    lines.push("")
    lines.push("| invariant | pay-in | order | what | faults around |")
    lines.push("|---|---|---|---|---|")
    for (const v of r.audit.violations.slice(0, 200)) {
      lines.push(`| ${v.invariant} | ${v.payinId} | ${v.orderId ?? "–"} | ${cell(v.detail)} | ${cell((v.faults ?? []).join("; ") || "none")} |`)
    }
    if (violations > 200) lines.push(`\n(${violations - 200} more in report.json)`)
  }
  return lines.join("\n") + "\n"
}

/** The vitals' rows of the invariant table, then their own tables (memory, incidents, violations). */
function vitalsMarkdown(v: VitalsReport): string[] {
  const lines: string[] = []
  for (const [name, c] of Object.entries(v.invariants) as [Vital, { checks: number; violations: number }][]) lines.push(`| ${name}: ${VITALS[name]} | ${c.checks} | ${c.violations} |`)
  const seen = Object.entries(v.polls.failingSeen).map(([k, n]) => `${k} ×${n}`).join(", ") || "none"
  const kinds = Object.entries(v.notifications.shopper).map(([k, n]) => `${k} ${n}`).join(", ") || "none"
  lines.push(
    "",
    `**Vitals: ${v.violations.length} violation${v.violations.length === 1 ? "" : "s"}.** Health polled ${v.polls.answered} times (${v.polls.failed} unanswered), failing seen: ${seen}. ` +
      `${v.incidents.length} alert incidents, ${v.notifications.alerts} alert notifications; shopper notifications for ${v.notifications.orders} orders: ${kinds}. ` +
      `Memory margin: ${Math.round(v.margin.ratio * 100)} % + ${v.margin.floorKb / 1024} MB above the second quarter's median.`,
    "",
    "| process | pid | seconds | samples | first MB | 2nd-quarter median MB | end MB | max MB |",
    "|---|---|---|---|---|---|---|---|"
  )
  for (const m of v.memory) lines.push(`| ${m.role} | ${m.pid} | ${m.seconds}${m.judged ? "" : " (not judged)"} | ${m.samples} | ${m.firstMb} | ${m.q2MedianMb} | ${m.endMb} | ${m.maxMb} |`)
  if (v.incidents.length) {
    lines.push("", "| health incident | began | alert (feed, e-mails) | recovery | faults it covers |", "|---|---|---|---|---|")
    for (const i of v.incidents) {
      const mails = (x: Record<string, number>) => Object.values(x).reduce((a, b) => a + b, 0)
      lines.push(`| ${i.signal} (${i.scope}) | ${time(i.incidentAt)} | ${i.failing.feed}, ${mails(i.failing.email)} | ${i.recovered.at ? `${time(i.recovered.at)}: ${i.recovered.feed}, ${mails(i.recovered.email)}` : "–"} | ${cell(i.causes.join("; ") || "none")} |`)
    }
  }
  if (v.violations.length) {
    lines.push("", "| vital | subject | what | faults around |", "|---|---|---|---|")
    for (const x of v.violations.slice(0, 200)) lines.push(`| ${x.invariant} | ${cell(x.subject)} | ${cell(x.detail)} | ${cell((x.faults ?? []).join("; ") || "–")} |`)
  }
  return lines
}

/** Writes report.json and report.md into `dir`; returns their paths. */
export function writeReport(dir: string, report: SoakReport): { json: string; md: string } {
  mkdirSync(dir, { recursive: true })
  const json = path.join(dir, "report.json")
  const md = path.join(dir, "report.md")
  writeFileSync(json, JSON.stringify(report, null, 2))
  writeFileSync(md, markdown(report))
  return { json, md }
}
