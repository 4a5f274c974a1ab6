// The client's one hook: each public call runs inside `around`, so a span can wrap it and the
// health can count it while client/ imports nothing of either (they plug in where clients are built).
import { PayinIpNotWhitelistedError } from "./errors"
import { type ServiceOutcome, serviceOutcomeOf } from "./outcome"

/** The client's public calls, each one operation whatever it retries or looks up to settle. */
export const SERVICE_OPERATIONS = [
  "create_payin",
  "get_payin",
  "get_payin_by_external_id",
  "find_payin_by_external_id",
  "look_up",
  "list_banks",
  "list_currencies",
] as const
export type ServiceOperation = (typeof SERVICE_OPERATIONS)[number]

/** One call as its hook sees it; `exchanges` and `lastStatus` grow while it runs (HTTP exchanges sent, the last answer's status). */
export interface ServiceCall {
  readonly operation: ServiceOperation
  readonly exchanges: number
  readonly lastStatus?: number
}

/** Runs `run` once and passes on its result or its error, doing its own work around it. */
export type AroundCall = <T>(call: ServiceCall, run: () => Promise<T>) => Promise<T>

/** The first hook outermost (a span holds what the ones inside it do); none given: undefined. */
export function aroundAll(...hooks: (AroundCall | undefined)[]): AroundCall | undefined {
  const given = hooks.filter((h): h is AroundCall => Boolean(h))
  if (!given.length) return undefined
  return given.reduceRight<AroundCall>(
    (inner, outer) => (call, run) => outer(call, () => inner(call, run)),
    (_call, run) => run()
  )
}

/** What an observer is told after each call: never the key or the request. */
export type CallObservation = { operation: ServiceOperation; outcome: ServiceOutcome; ms: number; address: string | null }

/** A hook that tells `observe` each call's outcome once it ended (the health's counters); an observer that throws never fails the call. */
export function observeCalls(observe: (call: CallObservation) => void): AroundCall {
  return async (call, run) => {
    const started = performance.now()
    let outcome: ServiceOutcome = "ok"
    let address: string | null = null
    try {
      return await run()
    } catch (error) {
      outcome = serviceOutcomeOf(error)
      if (error instanceof PayinIpNotWhitelistedError) address = error.address
      throw error
    } finally {
      try {
        observe({ operation: call.operation, outcome, ms: performance.now() - started, address })
      } catch {
        // counting never fails a call
      }
    }
  }
}
