/**
 * Group commit: an item submitted while nothing is being written goes out at once, alone; items
 * submitted while a write is in flight wait for it and go out together in the next one (at most
 * `maxBatch`). Each caller gets its own result, or the batch's error. Pure scheduling: the write is
 * the caller's.
 */
export class GroupCommit<I, R> {
  private queue_: { item: I; resolve: (r: R) => void; reject: (e: unknown) => void }[] = []
  private running_ = false

  constructor(
    private readonly write: (items: I[]) => Promise<R[]>,
    private readonly maxBatch = 100
  ) {}

  submit(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue_.push({ item, resolve, reject })
      if (!this.running_) void this.run()
    })
  }

  get waiting(): number {
    return this.queue_.length
  }

  private async run(): Promise<void> {
    this.running_ = true
    try {
      while (this.queue_.length) {
        const batch = this.queue_.splice(0, this.maxBatch)
        try {
          const results = await this.write(batch.map((b) => b.item))
          if (results.length !== batch.length) throw new Error(`a batch of ${batch.length} was written with ${results.length} results`)
          batch.forEach((b, k) => b.resolve(results[k]))
        } catch (error) {
          for (const b of batch) b.reject(error)
        }
      }
    } finally {
      this.running_ = false
    }
  }
}
