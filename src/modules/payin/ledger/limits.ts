// No imports: the admin's bundle reads these too.

export const COUNT_CAP = 10_000

export const MAX_OFFSET = 10_000

export const SEARCH_EXACT_CAP = 1000

export const SEARCH_WINDOW = 20_000
