/** One exchange with the whole of `timeoutMs`, plus as long again for the lookup that settles an unknown outcome: a checkout never waits longer. */
export const OPERATION_DEADLINE_FACTOR = 2

export class OperationDeadline {
  readonly totalMs: number
  private readonly at: number
  /** HTTP exchanges sent under this deadline, and the last answer's status: what the call's span reports. */
  exchanges = 0
  lastStatus?: number

  constructor(readonly operation: string, timeoutMs: number) {
    this.totalMs = timeoutMs * OPERATION_DEADLINE_FACTOR
    this.at = Date.now() + this.totalMs
  }

  leftMs(): number {
    return Math.max(0, this.at - Date.now())
  }

  /** Waits `ms` and says true, or says false at once when no time would be left after it. */
  async pause(ms: number): Promise<boolean> {
    if (ms >= this.leftMs()) return false
    await new Promise((resolve) => setTimeout(resolve, ms))
    return true
  }

  describe(budgetMs: number, timeoutMs: number): string {
    return budgetMs < timeoutMs
      ? `the deadline of ${this.operation} (${this.totalMs} ms, ${OPERATION_DEADLINE_FACTOR} × timeoutMs)`
      : `${budgetMs} ms`
  }
}
