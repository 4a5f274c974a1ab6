// Counts the requests a sandbox receives on its service routes, split into those made while a
// window is open (the webhook deliveries being measured) and the others (preparation).
// Every service request passes the sandbox's fault injector first (`core.faults.take(route)`,
// src/sandbox/app.ts), so wrapping that one method sees them all, faults or not.
import type { FaultRoute, RunningSandbox } from "../../src/sandbox"

export const LOOKUP_ROUTES: FaultRoute[] = ["GET /payment/trading/{id}", "GET /payment/trading/external/{id}"]

export type ServiceCalls = {
  /** Runs `job` with the window open; calls it causes are counted as `inWindow`. */
  during<T>(job: () => Promise<T>): Promise<T>
  inWindow: Record<string, number>
  outside: Record<string, number>
  lookupsInWindow(): number
  lookupsOutside(): number
}

export function countServiceCalls(sandbox: RunningSandbox): ServiceCalls {
  const faults = sandbox.core.faults as unknown as { take: (route: FaultRoute | null) => unknown }
  const take = faults.take.bind(faults)
  let open = 0
  const inWindow: Record<string, number> = {}
  const outside: Record<string, number> = {}
  faults.take = (route) => {
    const counts = open > 0 ? inWindow : outside
    const name = route ?? "(other)"
    counts[name] = (counts[name] ?? 0) + 1
    return take(route)
  }
  const lookups = (counts: Record<string, number>) => LOOKUP_ROUTES.reduce((sum, r) => sum + (counts[r] ?? 0), 0)
  return {
    async during(job) {
      open++
      try {
        return await job()
      } finally {
        open--
      }
    },
    inWindow,
    outside,
    lookupsInWindow: () => lookups(inWindow),
    lookupsOutside: () => lookups(outside),
  }
}
