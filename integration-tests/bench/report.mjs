// Prints the lines the benchmarks recorded (integration-tests/bench/*), last, and clears them.
// `npm run bench` runs it after every part so the ratios are the final output.
import { existsSync, readFileSync, rmSync } from "node:fs"
import { benchReportFile } from "./report-file.mjs"

const file = benchReportFile()
if (process.argv.includes("--clear")) {
  rmSync(file, { force: true })
} else {
  const lines = existsSync(file) ? readFileSync(file, "utf8").trim() : "(no benchmark recorded anything)"
  const title =
    process.env.BENCH_SMOKE === "1"
      ? "benchmark smoke run (BENCH_SMOKE=1: every benchmark ran once with tiny counts; the figures are not measurements)"
      : "benchmark results (ratios against baselines measured in the same run)"
  console.log(`\n=== ${title} ===\n${lines}\n`)
  rmSync(file, { force: true })
}
