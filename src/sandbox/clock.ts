/** Sandbox clock: real time plus an offset that only the control API moves (forward). */
export class SandboxClock {
  constructor(private offset = 0) {}

  now(): number {
    return Date.now() + this.offset
  }

  get offsetMs(): number {
    return this.offset
  }

  advance(seconds: number): void {
    if (!Number.isFinite(seconds) || seconds < 0) {
      throw new Error("the clock only moves forward")
    }
    this.offset += Math.round(seconds * 1000)
  }
}
