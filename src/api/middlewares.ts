import { MedusaNextFunction, MedusaRequest, MedusaResponse, defineMiddlewares } from "@medusajs/framework/http"
import { isPayinProvider } from "../provider-id"
import { CLIENT_CONTEXT_KEY } from "../providers/payin/storefront-data"

// Overwrites whatever the storefront sends under this key, so the service's fraud checks never get forged values; only `pp_payin_*` sessions get it.
function captureClientContext(req: MedusaRequest, _res: MedusaResponse, next: MedusaNextFunction) {
  const providerId = (req.body as { provider_id?: unknown } | undefined)?.provider_id
  if (!isPayinProvider(typeof providerId === "string" ? providerId : null)) {
    return next()
  }
  const context = {
    ip: (req.ip ?? req.socket?.remoteAddress ?? "").replace(/^::ffff:/, "").slice(0, 64) || undefined,
    user_agent: (req.get("user-agent") ?? "").slice(0, 1024) || undefined,
    payment_collection_id: typeof req.params?.id === "string" ? req.params.id : undefined,
  }
  for (const holder of [req.body, (req as MedusaRequest & { validatedBody?: unknown }).validatedBody]) {
    if (holder && typeof holder === "object") {
      const target = holder as { data?: Record<string, unknown> }
      target.data = { ...(target.data ?? {}), [CLIENT_CONTEXT_KEY]: context }
    }
  }
  next()
}

export default defineMiddlewares({
  routes: [
    {
      matcher: "/store/payment-collections/:id/payment-sessions",
      methods: ["POST"],
      middlewares: [captureClientContext],
    },
    {
      matcher: "/hooks/payin/:id",
      methods: ["POST"],
      bodyParser: { preserveRawBody: true, sizeLimit: "256kb" },
    },
  ],
})
