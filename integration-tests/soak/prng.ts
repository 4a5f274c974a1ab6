// A seeded PRNG (mulberry32): every choice of the soak (checkout kinds, waits, servers, the fault
// schedule) comes from it, so a seed names a run. Each shopper and each fault lane gets its own
// stream (`fork`), so one stream's choices do not shift when another's timing varies.

export class Prng {
  private state: number

  constructor(seed: number) {
    this.state = seed >>> 0
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  chance(p: number): boolean {
    return this.next() < p
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]
  }

  /** A key of `weights`, with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as [K, number][]
    const total = entries.reduce((sum, [, w]) => sum + w, 0)
    let r = this.next() * total
    for (const [key, w] of entries) {
      r -= w
      if (r < 0) return key
    }
    return entries[entries.length - 1][0]
  }

  /** An independent stream named by `label` (same seed and label: same stream). */
  fork(label: string): Prng {
    let h = this.state ^ 0x9e3779b9
    for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193)
    return new Prng(h >>> 0)
  }
}
