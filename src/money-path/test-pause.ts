import { existsSync } from "fs"
import { MedusaContainer } from "@medusajs/framework/types"

/**
 * Test-only hook, off unless PAYIN_TEST_PAUSE_FILE is set: while that file exists, a process
 * about to make Medusa capture a pay-in whose `closed` the ledger already recorded stops there
 * (and logs "payin-test: paused before the capture of <id>") until the file is removed. The
 * production-topology spec kills a worker at exactly that moment; nothing else uses it.
 */
export async function pauseBeforeCaptureForTests(container: MedusaContainer, ledgerId: string): Promise<void> {
  const file = process.env.PAYIN_TEST_PAUSE_FILE
  if (!file || !existsSync(file)) return
  container.resolve("logger").warn(`payin-test: paused before the capture of ${ledgerId}`)
  while (existsSync(file)) {
    await new Promise((r) => setTimeout(r, 100))
  }
}
