/** Binary min-heap of (at, id) pairs: the expiry schedule of active transactions. */
export class ExpiryHeap {
  private items: { at: number; id: string }[] = []

  get size(): number {
    return this.items.length
  }

  push(at: number, id: string): void {
    const items = this.items
    items.push({ at, id })
    let i = items.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (items[parent].at <= items[i].at) break
      ;[items[parent], items[i]] = [items[i], items[parent]]
      i = parent
    }
  }

  peek(): { at: number; id: string } | undefined {
    return this.items[0]
  }

  pop(): { at: number; id: string } | undefined {
    const items = this.items
    if (items.length === 0) return undefined
    const top = items[0]
    const last = items.pop()!
    if (items.length > 0) {
      items[0] = last
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        if (l < items.length && items[l].at < items[m].at) m = l
        if (r < items.length && items[r].at < items[m].at) m = r
        if (m === i) break
        ;[items[m], items[i]] = [items[i], items[m]]
        i = m
      }
    }
    return top
  }

  clear(): void {
    this.items = []
  }
}
