import { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { z } from "zod"
import { PAYIN_MODULE } from "../modules/payin/key"
import type PayinModuleService from "../modules/payin/service"
import { FieldError, zodFields } from "../modules/payin/settings/overrides"

export function payinModule(req: MedusaRequest): PayinModuleService {
  return req.scope.resolve<PayinModuleService>(PAYIN_MODULE)
}

export function invalid(res: MedusaResponse, fields: FieldError[]): void {
  res.status(400).json({
    type: MedusaError.Types.INVALID_DATA,
    message: fields.map((f) => (f.path ? `${f.path}: ${f.message}` : f.message)).join("; "),
    fields,
  })
}

export function notFound(res: MedusaResponse, message: string): void {
  res.status(404).json({ type: MedusaError.Types.NOT_FOUND, message })
}

export function parseOr400<S extends z.ZodType>(res: MedusaResponse, schema: S, input: unknown): z.output<S> | null {
  const result = schema.safeParse(input ?? {})
  if (!result.success) {
    invalid(res, zodFields(result.error))
    return null
  }
  return result.data
}
