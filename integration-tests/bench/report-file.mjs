import { appendFileSync, mkdirSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")

export function benchReportFile() {
  return process.env.BENCH_REPORT_FILE || path.join(root, ".cache", "bench-report.txt")
}

/** Appends result lines for report.mjs to print at the end of `npm run bench`. */
export function recordBench(lines) {
  const file = benchReportFile()
  mkdirSync(path.dirname(file), { recursive: true })
  appendFileSync(file, lines.map((l) => `${l}\n`).join(""))
}
