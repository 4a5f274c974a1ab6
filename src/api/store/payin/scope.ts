/**
 * Which records a store request may see, and which pay-in is the current one (pure).
 */

/** True when a record of `salesChannelId` may be shown to a request with these channels (none = no restriction). */
export function inSalesChannels(salesChannelId: string | null | undefined, keyChannels: readonly string[] | undefined): boolean {
  if (!keyChannels?.length) return true
  return Boolean(salesChannelId && keyChannels.includes(salesChannelId))
}

type PayinRowLike = { id: string; created_at?: unknown; session_deleted_at?: unknown; status?: unknown; captured_at?: unknown }

/** Rows without repeats (by id), newest first (created_at, then id). */
export function newestFirst<R extends PayinRowLike>(rows: R[]): R[] {
  const seen = new Set<string>()
  return rows
    .filter((r) => (seen.has(r.id) ? false : (seen.add(r.id), true)))
    .sort((a, b) => time(b.created_at) - time(a.created_at) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
}

/**
 * The current pay-in among rows: the newest whose payment Medusa captured (a late payment into an
 * ended one, attached to a new session); else the newest whose session Medusa did not delete and
 * whose creation did not fail; else the newest whose session Medusa did not delete; else the newest
 * (the cart changed after its only session: that pay-in is shown as over); null for none. A failed
 * creation is passed over while a live pay-in exists: Medusa restores the collection's previous
 * session when creating a new one fails, and the provider re-attaches that session's pay-in, which
 * is older.
 */
export function pickCurrentRow<R extends PayinRowLike>(rows: R[]): R | null {
  const sorted = newestFirst(rows)
  return (
    sorted.find((r) => !r.session_deleted_at && r.captured_at) ??
    sorted.find((r) => !r.session_deleted_at && r.status !== "failed") ??
    sorted.find((r) => !r.session_deleted_at) ??
    sorted[0] ??
    null
  )
}

/**
 * The pay-in provider whose banks to list: the one asked for (null when it is not a configured
 * pay-in instance); else, for a cart, the first pay-in provider enabled in its region
 * (`pp_payin_default` first); else `pp_payin_default` when configured, else the first instance.
 */
export function chooseProvider(input: {
  requested?: string
  /** Configured pay-in provider ids (`pp_payin_<id>`), in medusa-config's order. */
  configured: readonly string[]
  /** Providers enabled in the cart's region; undefined without a cart. */
  regionProviders?: readonly string[]
  defaultId: string
}): { providerId: string | null; enabledInRegion: boolean } {
  const { configured, regionProviders, defaultId } = input
  const enabled = (id: string) => (regionProviders ? regionProviders.includes(id) : true)
  let providerId: string | null
  if (input.requested !== undefined) {
    providerId = configured.includes(input.requested) ? input.requested : null
  } else {
    const preferred = [...configured].sort((a, b) => Number(b === defaultId) - Number(a === defaultId))
    providerId =
      (regionProviders ? preferred.find(enabled) : undefined) ??
      (configured.includes(defaultId) ? defaultId : (configured[0] ?? null))
  }
  return { providerId, enabledInRegion: providerId !== null && enabled(providerId) }
}

function time(value: unknown): number {
  if (value === null || value === undefined) return 0
  const t = value instanceof Date ? value.getTime() : new Date(value as string).getTime()
  return Number.isNaN(t) ? 0 : t
}
