import { appendFileSync, existsSync, readFileSync } from "fs"
import type { FaultPoint, FaultPoints } from "../../src/modules/payin/service"

/**
 * The test app's fault points (the payin module option `faultPoints`, set by
 * integration-tests/app/medusa-config.ts when PAYIN_TEST_PAUSE_FILE is set). While `file` exists
 * and names a point, a run reaching it stops there (logs "payin-test: paused before the <point> of
 * <id>" and appends "<point> <id>" to `<file>.log`) until the file is removed or no longer names
 * it. The file names points as whitespace-separated `point` or `point:id` words (`id`: the ledger
 * id; for `record`, the service transaction's id); an empty file means `capture`. `point:id@n`
 * holds only the n-th run of this process to reach it (the others pass).
 */
export function pauseFilePoints(file: string): FaultPoints {
  const reached = new Map<string, number>()
  return async (point: FaultPoint, id: string) => {
    const nth = (reached.get(`${point}:${id}`) ?? 0) + 1
    reached.set(`${point}:${id}`, nth)
    if (!holds(file, point, id, nth)) return
    console.warn(`payin-test: paused before the ${point} of ${id}`)
    try {
      appendFileSync(`${file}.log`, `${point} ${id}\n`)
    } catch {
      // the log is a convenience for in-process specs
    }
    while (holds(file, point, id, nth)) {
      await new Promise((r) => setTimeout(r, 100))
    }
  }
}

function holds(file: string, point: FaultPoint, id: string, nth: number): boolean {
  if (!existsSync(file)) return false
  let words: string[]
  try {
    words = readFileSync(file, "utf8").split(/\s+/).filter(Boolean)
  } catch {
    return false
  }
  if (!words.length) return point === "capture"
  return words.includes(point) || words.includes(`${point}:${id}`) || words.includes(`${point}:${id}@${nth}`)
}
