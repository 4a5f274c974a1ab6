export function inSalesChannels(salesChannelId: string | null | undefined, keyChannels: readonly string[] | undefined): boolean {
  if (!keyChannels?.length) return true
  return Boolean(salesChannelId && keyChannels.includes(salesChannelId))
}

type PayinRowLike = { id: string; created_at?: unknown; session_deleted_at?: unknown; status?: unknown; captured_at?: unknown; order_id?: unknown }

export function newestFirst<R extends PayinRowLike>(rows: R[]): R[] {
  const seen = new Set<string>()
  return rows
    .filter((r) => (seen.has(r.id) ? false : (seen.add(r.id), true)))
    .sort((a, b) => time(b.created_at) - time(a.created_at) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
}

/**
 * Captured first (a late payment into an ended pay-in); a failed creation is passed over since Medusa restores the
 * previous session when creating one fails, and the provider re-attaches its older pay-in while it is live. An ended
 * one is not brought back (a refused pay again): the order's pay-in stays current, not the failed attempt.
 */
export function pickCurrentRow<R extends PayinRowLike>(rows: R[]): R | null {
  const sorted = newestFirst(rows)
  return (
    sorted.find((r) => !r.session_deleted_at && r.captured_at) ??
    sorted.find((r) => !r.session_deleted_at && r.status !== "failed") ??
    sorted.find((r) => r.order_id && r.status !== "failed") ??
    sorted.find((r) => !r.session_deleted_at) ??
    sorted[0] ??
    null
  )
}

/** Null when the requested id is not a configured instance; else the region's first enabled one, `pp_payin_default` preferred. */
export function chooseProvider(input: {
  requested?: string
  configured: readonly string[]
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
