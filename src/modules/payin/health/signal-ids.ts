// Moved to src/modules/payin/signal-ids.ts (settings/ reads it, and must not import health/): kept for src/admin/lib/health-text.ts until its import names the new place.
export * from "../signal-ids"
