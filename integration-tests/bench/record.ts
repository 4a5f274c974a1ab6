import { appendFileSync, mkdirSync } from "fs"
import path from "path"

/** Hands result lines to integration-tests/bench/report.mjs, which prints them last (same file as report-file.mjs). */
export function recordLines(lines: string[]): void {
  const file = process.env.BENCH_REPORT_FILE || path.join(__dirname, "..", "..", ".cache", "bench-report.txt")
  mkdirSync(path.dirname(file), { recursive: true })
  appendFileSync(file, lines.map((l) => `${l}\n`).join(""))
}
