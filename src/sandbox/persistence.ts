import { mkdirSync, readFileSync, renameSync, writeFileSync } from "fs"
import { dirname } from "path"
import type { MerchantSettings } from "./merchant"
import type { PayOutRecord } from "./payouts"
import type { TxRecord } from "./store"

/** What --data FILE holds. The delivery log and queued webhooks are not persisted. */
export interface PersistedState {
  version: 1
  savedAt: string
  clockOffsetMs: number
  merchant: MerchantSettings
  transactions: TxRecord[]
  payouts: PayOutRecord[]
}

/** The saved state, or null when the file does not exist yet. Throws on a corrupt file. */
export function loadState(file: string): PersistedState | null {
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null
    throw err
  }
  const state = JSON.parse(text) as PersistedState
  if (!state || state.version !== 1 || !Array.isArray(state.transactions)) {
    throw new Error(`${file} is not a payin-sandbox data file`)
  }
  return state
}

/** Atomic write: a temp file renamed over the target, so a crash never leaves half a file. */
export function saveState(file: string, state: PersistedState): void {
  mkdirSync(dirname(file), { recursive: true })
  const temp = `${file}.${process.pid}.tmp`
  writeFileSync(temp, JSON.stringify(state))
  renameSync(temp, file)
}
