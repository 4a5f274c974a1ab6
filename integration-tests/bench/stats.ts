// Medians of alternating runs, for the benchmarks' ratios.

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** "0.97 (median of 3: 0.95, 0.97, 0.99)" — the runs in the order they were measured. */
export const medianOf = (values: number[], digits = 2): string =>
  `${median(values).toFixed(digits)} (median of ${values.length}: ${values.map((v) => v.toFixed(digits)).join(", ")})`

/**
 * Runs the named phases `rounds` times, alternating their order (A,B,C then C,B,A, …) so drift
 * and warm-up hit every phase alike; returns each phase's results in round order.
 */
export async function alternating<K extends string, T>(
  rounds: number,
  phases: Record<K, (round: number) => Promise<T>>,
  before?: (round: number) => Promise<void>
): Promise<Record<K, T[]>> {
  const names = Object.keys(phases) as K[]
  const results = Object.fromEntries(names.map((n) => [n, [] as T[]])) as Record<K, T[]>
  for (let round = 0; round < rounds; round++) {
    await before?.(round)
    for (const name of round % 2 ? [...names].reverse() : names) {
      results[name].push(await phases[name](round))
    }
  }
  return results
}
