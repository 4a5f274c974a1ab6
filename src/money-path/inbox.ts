import { MedusaContainer } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { PAYIN_MODULE } from "../modules/payin/key"
import { errorMessage } from "../client/errors"
import { Transaction, TransactionSchema } from "../client/schemas"
import { ForeignPayinError } from "../modules/payin/ledger/errors"
import type { ClaimedEntry } from "../modules/payin/inbox/inbox"
import { WEBHOOK_INBOX_INTERVAL_SECONDS, WEBHOOK_INBOX_JOB } from "../modules/payin/job-runs/job-runs"
import type PayinModuleService from "../modules/payin/service"
import { instanceIdOf } from "../provider-id"
import { type BookingOutcome, SPANS, traceBooking, traced } from "../telemetry"
import { ApplyPayinEventResult, applyPayinEvent } from "./apply"
import { coalesced } from "./coalesced"
import { perService } from "../medusa"

// Below a sender's usual 10 s timeout (stuck infrastructure waits far longer: knex 60 s, locking-redis 44 s measured)
export const WEBHOOK_ANSWER_DEADLINE_MS = 8_000
export const WEBHOOK_RETRY_AFTER_SECONDS = 5

export const LATE: unique symbol = Symbol("late")

export async function beforeDeadline<T>(
  work: Promise<T>,
  deadline: number,
  onLateFailure: (error: unknown) => void = () => undefined
): Promise<T | typeof LATE> {
  let timer: NodeJS.Timeout | undefined
  let late = false
  const guarded = work.catch((error): typeof LATE => {
    if (late) {
      onLateFailure(error)
      return LATE
    }
    throw error
  })
  const timeout = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => {
      late = true
      resolve(LATE)
    }, Math.max(0, deadline - Date.now()))
  })
  try {
    return await Promise.race<T | typeof LATE>([guarded, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** What the route answers from: stored (applied on the worker), a duplicate, or a duplicate of one refused before. */
export type StoreOutcome = { outcome: "stored"; id: string } | { outcome: "duplicate" } | { outcome: "foreign"; error: string }
export type DeadlineOutcome = StoreOutcome | { outcome: "late" } | { outcome: "unavailable"; error: string }

/** The plugin's own wake-up call to the processes that apply webhooks (the worker): the inbox is the queue, not the event. */
export const WEBHOOK_STORED_EVENT = "payin.webhook_stored"

export async function receivePayinWebhookBefore(
  container: MedusaContainer,
  providerId: string,
  transaction: Transaction,
  rawBody: string,
  deadline = Date.now() + WEBHOOK_ANSWER_DEADLINE_MS
): Promise<DeadlineOutcome> {
  const logger = container.resolve("logger")
  const what = `webhook ${transaction.id} (${transaction.status}) for ${providerId}`
  let outcome: DeadlineOutcome
  try {
    const result = await beforeDeadline(receivePayinWebhook(container, providerId, transaction, rawBody), deadline, (error) =>
      logger.warn(`payin: ${what} failed after its deadline: ${errorMessage(error)}`)
    )
    outcome = result === LATE ? { outcome: "late" } : result
  } catch (error) {
    outcome = { outcome: "unavailable", error: errorMessage(error) }
  }
  if (outcome.outcome === "late") {
    logger.warn(`payin: ${what} not stored by its deadline: answered 503`)
  } else if (outcome.outcome === "unavailable") {
    logger.warn(`payin: ${what} could not be stored, answered 503: ${outcome.error}`)
  }
  return outcome
}

/**
 * Stores a verified callback in the inbox and wakes the processes that apply it (the worker, or
 * this process in `shared` mode); never applies it here. A lost wake-up loses nothing: the inbox
 * job claims what is left every few seconds.
 */
export async function receivePayinWebhook(
  container: MedusaContainer,
  providerId: string,
  transaction: Transaction,
  rawBody: string
): Promise<StoreOutcome> {
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const entry = await traced(SPANS.webhookStore, {}, () => payin.inbox.receive(providerId, transaction, rawBody), (e) => ({ "payin.inbox.new": e.inserted }))
  if (entry.state === "applied") return { outcome: "duplicate" }
  if (entry.state === "rejected") return { outcome: "foreign", error: "refused before" }
  wakeAppliers(container)
  return { outcome: "stored", id: entry.id }
}

/** Per event bus: its wake-up signal. */
const WAKE = Symbol("payin.wake")
/** An emit unanswered this long (Redis gone: the bus waits without a limit) no longer holds the next ones back. */
const WAKE_STALE_MS = 3_000
/** Under a burst, at most one wake-up per this many ms (an emit costs the answering server more than storing the entry). */
export const WAKE_GAP_MS = 100

/**
 * The event only wakes the appliers (no data): entries stored while one is being emitted share the
 * next one, so a burst costs a few emits, not one per callback.
 */
function wakeAppliers(container: MedusaContainer): void {
  const bus = container.resolve(Modules.EVENT_BUS)
  const wake = perService(bus, WAKE, () => {
    const logger = container.resolve("logger")
    // not awaited by the answer: with Redis down the event bus waits without a limit, and the entry is stored already
    const emit = () =>
      bus.emit({ name: WEBHOOK_STORED_EVENT, data: {} }).catch((error: unknown) => logger.warn(`payin: could not wake the webhook appliers (the inbox job will): ${errorMessage(error)}`))
    return coalesced(emit, WAKE_STALE_MS, Date.now, WAKE_GAP_MS)
  })
  wake()
}

export type AppliedOutcome =
  | ({ outcome: "applied" } & ApplyPayinEventResult)
  | { outcome: "queued"; error: string }
  | { outcome: "foreign"; error: string }

/** `receivedAt`: when the callback came in (ms), the start of its webhook-to-capture time. */
export async function applyInboxEntry(
  container: MedusaContainer,
  entryId: string,
  providerId: string,
  transaction: Transaction,
  receivedAt?: number
): Promise<AppliedOutcome> {
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  try {
    const result = await applyPayinEvent(container, { instanceId: instanceIdOf(providerId)!, transaction, source: "webhook", receivedAt })
    await payin.inbox.settle(entryId, { ok: true, result })
    return { outcome: "applied", ...result }
  } catch (error) {
    const message = errorMessage(error)
    if (error instanceof ForeignPayinError) {
      await payin.inbox.settle(entryId, { ok: false, error: message, permanent: true, reason: "foreign_payin" })
      return { outcome: "foreign", error: message }
    }
    container
      .resolve("logger")
      .warn(`payin: webhook ${entryId} (${transaction.id} ${transaction.status}) not applied yet, will retry: ${message}`)
    await payin.inbox.settle(entryId, { ok: false, error: message })
    return { outcome: "queued", error: message }
  }
}

/** One claimed entry, in a span of its own (no request is its parent any more). */
function applyClaimed(container: MedusaContainer, entry: ClaimedEntry): Promise<BookingOutcome> {
  return traceBooking(entry.provider_id, async () => {
    const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
    let parsed: ReturnType<typeof TransactionSchema.safeParse>
    try {
      parsed = TransactionSchema.safeParse(JSON.parse(entry.raw_body))
    } catch {
      parsed = TransactionSchema.safeParse(undefined)
    }
    if (!parsed.success) {
      await payin.inbox.settle(entry.id, { ok: false, error: "stored body is not a Transaction", permanent: true, reason: "invalid_transaction" })
      return "invalid_transaction"
    }
    return (await applyInboxEntry(container, entry.id, entry.provider_id, parsed.data, new Date(entry.created_at).getTime())).outcome
  })
}

/** Webhooks applied at once per process: each holds a database connection and a lock or two. */
export const APPLY_CONCURRENCY = 8
/**
 * How long a process holds an entry it claimed; past it (the process died) another takes it over.
 * Extended every third of it while the entry is applied, so it can stay short: a killed worker's
 * entries wait at most this, under the shortest `webhookBacklogSeconds` (10) with the inbox job's
 * wake-up (soak seed 1, 30 minutes: 30 s leases raised webhooks_backlog after 6 s worker kills).
 */
export const INBOX_LEASE_SECONDS = 10

/**
 * Applies the inbox's due entries in this process, `APPLY_CONCURRENCY` at once, claiming each
 * (a lease) so processes never apply one at the same time. Woken by the event and the job;
 * wake-ups while it runs make it look again when done, never a second loop.
 */
export class InboxDrain {
  private readonly active_ = new Set<Promise<void>>()
  /** Entries claimed and being applied here: their leases are extended until settled. */
  private readonly held_ = new Set<string>()
  private renewal_: NodeJS.Timeout | null = null
  private woken_ = false
  private loop_: Promise<void> | null = null

  constructor(
    private readonly container: MedusaContainer,
    private readonly concurrency = APPLY_CONCURRENCY,
    private readonly apply: (container: MedusaContainer, entry: ClaimedEntry) => Promise<unknown> = applyClaimed
  ) {}

  get active(): number {
    return this.active_.size
  }

  /** Starts a drain unless one runs; resolves when this drain (and any wake-up during it) found nothing more to claim. */
  wake(): Promise<void> {
    this.woken_ = true
    if (!this.loop_) {
      this.loop_ = this.run().finally(() => {
        this.loop_ = null
      })
    }
    return this.loop_
  }

  /** Resolves when no drain runs and nothing is being applied (claims nothing new). */
  async settled(): Promise<void> {
    while (this.loop_ || this.active_.size) await Promise.all([this.loop_, ...this.active_])
  }

  /** Applies until a claim finds nothing due and nothing is being applied. */
  async drain(): Promise<void> {
    for (;;) {
      await this.wake()
      if (!this.active_.size) return
      await Promise.all([...this.active_])
    }
  }

  private async run(): Promise<void> {
    const payin = this.container.resolve<PayinModuleService>(PAYIN_MODULE)
    try {
      while (this.woken_) {
        this.woken_ = false
        for (let full = true; full; ) {
          while (this.active_.size >= this.concurrency) await Promise.race(this.active_)
          const free = this.concurrency - this.active_.size
          const entries = await payin.inbox.claim(free, INBOX_LEASE_SECONDS)
          full = entries.length === free
          for (const entry of entries) this.start(entry)
        }
      }
    } catch (error) {
      this.container.resolve("logger").warn(`payin: could not claim webhooks to apply (the inbox job tries again): ${errorMessage(error)}`)
    }
  }

  private start(entry: ClaimedEntry): void {
    this.held_.add(entry.id)
    this.renewal_ ??= setInterval(() => void this.renew(), (INBOX_LEASE_SECONDS * 1000) / 3).unref()
    const running: Promise<void> = this.apply(this.container, entry)
      .then(
        () => undefined,
        (error: unknown) => {
          // settling failed too (the database is gone): the lease passes and the entry is taken again
          this.container.resolve("logger").warn(`payin: webhook ${entry.id} not applied (taken again after its lease): ${errorMessage(error)}`)
        }
      )
      .finally(() => {
        this.active_.delete(running)
        this.held_.delete(entry.id)
        if (!this.held_.size && this.renewal_) {
          clearInterval(this.renewal_)
          this.renewal_ = null
        }
      })
    this.active_.add(running)
  }

  private async renew(): Promise<void> {
    try {
      await this.container.resolve<PayinModuleService>(PAYIN_MODULE).inbox.extendLeases([...this.held_], INBOX_LEASE_SECONDS)
    } catch (error) {
      // the database is gone: the lease passes and the entry is taken again, as after a crash
      this.container.resolve("logger").warn(`payin: could not extend the leases of webhooks being applied: ${errorMessage(error)}`)
    }
  }
}

const DRAIN = Symbol("payin.inbox_drain")

/** This process's drain (one per payin module instance, whichever container resolves it: a job's, a subscriber's). */
export function inboxDrain(container: MedusaContainer): InboxDrain {
  return perService(container.resolve<PayinModuleService>(PAYIN_MODULE), DRAIN, () => new InboxDrain(container))
}

/** Applies every due inbox entry now, in this process, and waits for them (the inbox job; tests). */
export async function applyWebhookInbox(container: MedusaContainer): Promise<void> {
  await inboxDrain(container).drain()
}

/** The inbox job's run: wakes this process's drain without waiting for it (a backlog drains for minutes; the run is recorded at once). */
export async function applyWebhookInboxScheduled(container: MedusaContainer): Promise<void> {
  const payin = container.resolve<PayinModuleService>(PAYIN_MODULE)
  const drain = inboxDrain(container)
  void drain.wake()
  await payin.jobs.record(WEBHOOK_INBOX_JOB, { applying: drain.active }, WEBHOOK_INBOX_INTERVAL_SECONDS)
}
