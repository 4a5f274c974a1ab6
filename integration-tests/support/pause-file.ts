import { appendFileSync, existsSync, readFileSync } from "fs"
import type { FaultPoint, FaultPoints } from "../../src/modules/payin/service"

/**
 * The test app's fault points (the payin module option `faultPoints`, set by
 * integration-tests/app/medusa-config.ts when PAYIN_TEST_PAUSE_FILE is set). While `file` exists
 * and names a point, a run reaching it stops there (logs "payin-test: paused before the <point> of
 * <id>" and appends "<point> <id>" to `<file>.log`) until the file is removed or no longer names
 * it. The file names points as whitespace-separated `point` or `point:id` words (`id`: the ledger
 * id; for `record`, the service transaction's id); an empty file means `capture`.
 */
export function pauseFilePoints(file: string): FaultPoints {
  return async (point: FaultPoint, id: string) => {
    if (!holds(file, point, id)) return
    console.warn(`payin-test: paused before the ${point} of ${id}`)
    try {
      appendFileSync(`${file}.log`, `${point} ${id}\n`)
    } catch {
      // the log is a convenience for in-process specs
    }
    while (holds(file, point, id)) {
      await new Promise((r) => setTimeout(r, 100))
    }
  }
}

function holds(file: string, point: FaultPoint, id: string): boolean {
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
