import { appendFileSync, existsSync, readFileSync } from "fs"
import { MedusaContainer } from "@medusajs/framework/types"

/** Where the money path can be held by a test: before Medusa's capture, before its order cancel, before recording a status. */
export type TestPausePoint = "capture" | "cancel_order" | "record"

/**
 * Test-only hook, off unless PAYIN_TEST_PAUSE_FILE is set. While that file exists and names the
 * point, a process reaching it stops there (logs "payin-test: paused before the <point> of <id>"
 * and appends "<point> <id>" to `<file>.log`) until the file is removed or no longer names it.
 * The file names points as whitespace-separated `point` or `point:id` words (`id`: the ledger id;
 * for `record`, the service transaction's id); an empty file means `capture` (the
 * production-topology spec kills a process paused there). Specs use it to hold a capture or
 * cancel past the lock's lifetime (effect-retries.spec.ts); nothing else does.
 */
export async function pauseForTests(container: MedusaContainer, point: TestPausePoint, id: string): Promise<void> {
  const file = process.env.PAYIN_TEST_PAUSE_FILE
  if (!file || !holds(file, point, id)) return
  container.resolve("logger").warn(`payin-test: paused before the ${point} of ${id}`)
  try {
    appendFileSync(`${file}.log`, `${point} ${id}\n`)
  } catch {
    // the log is a convenience for in-process specs
  }
  while (holds(file, point, id)) {
    await new Promise((r) => setTimeout(r, 100))
  }
}

function holds(file: string, point: TestPausePoint, id: string): boolean {
  if (!existsSync(file)) return false
  let words: string[]
  try {
    words = readFileSync(file, "utf8").split(/\s+/).filter(Boolean)
  } catch {
    return false
  }
  if (!words.length) return point === "capture"
  return words.includes(point) || words.includes(`${point}:${id}`)
}
