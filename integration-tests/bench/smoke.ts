// The benchmarks' smoke mode (BENCH_SMOKE=1, `npm run bench:smoke`, run by CI after the tests):
// every benchmark runs its whole path once with tiny counts (a few requests, a few hundred rows),
// so a benchmark that can no longer start or finish fails CI. The figures it prints mean nothing
// and nothing is asserted about them; a BENCH_* variable that is set still wins.
// (integration-tests/bench/sandbox.mjs, plain Node, reads BENCH_SMOKE the same way.)

export const SMOKE = process.env.BENCH_SMOKE === "1"

/** The number the BENCH_* variable `name` gives, else `full`, or `smoke` in smoke mode. */
export function benchSetting(name: string, full: number, smoke: number): number {
  const set = process.env[name]
  return set ? Number(set) : SMOKE ? smoke : full
}
