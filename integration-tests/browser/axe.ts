// axe-core's WCAG 2.1 A and AA rules (through @axe-core/playwright, which injects axe by
// evaluating it: no <script> element, so a page's CSP does not get in the way) on a page or on
// our components in it. A test fails listing every violation of the impacts it does not allow:
// serious and critical by default.
import { AxeBuilder } from "@axe-core/playwright"
import type { Page } from "playwright-core"

export const WCAG21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

export type AxeImpact = "minor" | "moderate" | "serious" | "critical"

export type AxeFinding = { id: string; impact: AxeImpact | null; help: string; targets: string[] }

export type AxeCheck = {
  /** Names the page and state in the failure ("order page: paid"). */
  state: string
  /** CSS selectors of the parts to check (our components); the whole page when absent. */
  include?: string | string[]
  exclude?: string | string[]
  /** The impacts that fail the test. */
  fail?: AxeImpact[]
}

const list = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v])

/** Every WCAG 2.1 A/AA violation axe finds in the checked parts. */
export async function axeFindings(page: Page, check: Omit<AxeCheck, "state" | "fail"> = {}): Promise<AxeFinding[]> {
  let builder = new AxeBuilder({ page }).withTags(WCAG21_AA)
  for (const selector of list(check.include)) builder = builder.include(selector)
  for (const selector of list(check.exclude)) builder = builder.exclude(selector)
  const result = await builder.analyze()
  return result.violations.map((v) => ({
    id: v.id,
    impact: (v.impact ?? null) as AxeImpact | null,
    help: v.help,
    targets: v.nodes.map((n) => n.target.map(String).join(" ")),
  }))
}

/** One line per violation: rule id, impact, help, the elements. */
export function describeFindings(findings: AxeFinding[]): string {
  return findings.map((f) => `  ${f.id} (${f.impact}): ${f.help}\n    ${f.targets.join("\n    ")}`).join("\n")
}

/**
 * Fails with every serious or critical violation (or those of `fail`) in the checked parts of the
 * page as it is now; the lesser ones are printed. The selectors must match (axe refuses a context
 * that matches nothing), so a call also checks that the state is on screen.
 */
export async function expectAccessible(page: Page, check: AxeCheck): Promise<void> {
  const fail = check.fail ?? ["serious", "critical"]
  const findings = await axeFindings(page, check)
  const failing = findings.filter((f) => f.impact !== null && fail.includes(f.impact))
  const other = findings.filter((f) => !failing.includes(f))
  if (other.length) console.log(`[axe] ${check.state}: ${other.length} lesser finding(s)\n${describeFindings(other)}`)
  if (failing.length) {
    throw new Error(`axe (WCAG 2.1 A/AA) on ${check.state}: ${failing.length} ${fail.join(" or ")} violation(s)\n${describeFindings(failing)}`)
  }
}
