import type { ExecArgs } from "@medusajs/framework/types"
import { checkMedusa } from "../medusa"

/**
 * `npx medusa exec ./node_modules/medusa-plugin-payin/.medusa/server/src/scripts/check-medusa.js`
 *
 * Checks what the plugin relies on of Medusa beyond its public API (src/medusa/README.md) on
 * this store: a line per internal, exit code 1 when one has moved (e.g. after a Medusa upgrade).
 */
export default async function checkMedusaScript({ container }: ExecArgs): Promise<void> {
  const results = await checkMedusa(container)
  const lines = results.map((r) => `payin medusa check: ${r.ok ? "ok  " : "FAIL"} ${r.internal}: ${r.detail}`)
  // written before returning: `medusa exec` exits as soon as the script returns
  await new Promise<void>((resolve) => process.stdout.write(`${lines.join("\n")}\n`, () => resolve()))
  if (results.some((r) => !r.ok)) process.exitCode = 1
}
