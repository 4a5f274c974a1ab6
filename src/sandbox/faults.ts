import { z } from "zod"
import type { Random } from "./random"

/** Service routes faults can target ("*" targets all of them). */
export const FAULT_ROUTES = [
  "POST /payment/trading/pay-in",
  "GET /payment/trading/banks",
  "GET /payment/trading/currency",
  "GET /payment/trading/{id}",
  "GET /payment/trading/external/{id}",
  "POST /payment/trading/pay-out",
] as const
export type FaultRoute = (typeof FAULT_ROUTES)[number]

export const FaultSchema = z
  .strictObject({
    route: z.enum([...FAULT_ROUTES, "*"]).default("*"),
    /** Answer with this status (and an error body) instead of handling the request. */
    status: z.number().int().min(400).max(599).optional(),
    /** Error code in the injected error body (default SANDBOX_FAULT). */
    code: z.string().min(1).max(64).optional(),
    /** Wait this long first; alone, the request is then handled normally. */
    delayMs: z.number().int().min(0).max(120_000).optional(),
    reset: z.boolean().optional(),
    /** Chance that a matching request triggers the fault (default 1). */
    probability: z.number().min(0).max(1).default(1),
    /** Trigger for the next N matching requests only, then disappear (default: until cleared). */
    count: z.number().int().min(1).optional(),
  })
  .refine((f) => f.status !== undefined || f.delayMs !== undefined || f.reset === true, {
    message: "a fault needs status, delayMs or reset",
  })
  .refine((f) => !(f.reset === true && f.status !== undefined), {
    message: "reset and status exclude each other",
  })
export type FaultInput = z.input<typeof FaultSchema>
export type Fault = z.output<typeof FaultSchema>

export const FaultListSchema = z.union([
  z.array(FaultSchema),
  z.strictObject({ faults: z.array(FaultSchema) }).transform((body) => body.faults),
])

/** Which fault route a service request hits, or null for paths outside the service API. */
export function faultRouteOf(method: string, path: string): FaultRoute | null {
  if (method === "POST") {
    if (path === "/payment/trading/pay-in") return "POST /payment/trading/pay-in"
    if (path === "/payment/trading/pay-out") return "POST /payment/trading/pay-out"
    return null
  }
  if (method !== "GET") return null
  if (path === "/payment/trading/banks") return "GET /payment/trading/banks"
  if (path === "/payment/trading/currency") return "GET /payment/trading/currency"
  if (/^\/payment\/trading\/external\/[^/]+$/.test(path)) return "GET /payment/trading/external/{id}"
  if (/^\/payment\/trading\/[^/]+$/.test(path)) return "GET /payment/trading/{id}"
  return null
}

/** The configured faults; `take` decides (and consumes) the fault a request suffers. */
export class FaultInjector {
  private faults: Fault[] = []

  constructor(private random: Random) {}

  set(faults: Fault[]): void {
    this.faults = faults.map((f) => ({ ...f }))
  }

  clear(): void {
    this.faults = []
  }

  list(): Fault[] {
    return this.faults.map((f) => ({ ...f }))
  }

  take(route: FaultRoute | null): Fault | undefined {
    if (route === null || this.faults.length === 0) return undefined
    for (let i = 0; i < this.faults.length; i++) {
      const fault = this.faults[i]
      if (fault.route !== "*" && fault.route !== route) continue
      if (fault.probability < 1 && !(this.random() < fault.probability)) continue
      if (fault.count !== undefined) {
        fault.count -= 1
        if (fault.count <= 0) this.faults.splice(i, 1)
      }
      return { ...fault }
    }
    return undefined
  }
}
