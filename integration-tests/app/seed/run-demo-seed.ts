// `medusa exec ./seed/run-demo-seed.ts` entry for the demo: seeds (idempotently) and writes the
// result as JSON to DEMO_SEED_OUT.
import { writeFileSync } from "fs"
import { ExecArgs } from "@medusajs/framework/types"
import { payinProviderId } from "../../../medusa-plugin.config"
import { seedDemoStore } from "./demo-store"

export default async function runDemoSeed({ container }: ExecArgs) {
  const out = process.env.DEMO_SEED_OUT
  const adminEmail = process.env.DEMO_ADMIN_EMAIL
  const adminPassword = process.env.DEMO_ADMIN_PASSWORD
  if (!out || !adminEmail || !adminPassword) {
    throw new Error("DEMO_SEED_OUT, DEMO_ADMIN_EMAIL and DEMO_ADMIN_PASSWORD must be set")
  }
  const result = await seedDemoStore(container, {
    providerIds: [payinProviderId("default"), "pp_system_default"],
    adminEmail,
    adminPassword,
  })
  writeFileSync(out, JSON.stringify(result, null, 2))
}
