"use client"
import type { PayinStatusResponse } from "../types"

// PayinLiveInstructions publishes what it polls and PayinOrderHeading listens, so the heading needs no second poll; keyed by order id, else cart id.
type Listener = (response: PayinStatusResponse) => void
const listeners = new Map<string, Set<Listener>>()

export function payinStatusKey(response: PayinStatusResponse | null | undefined): string | null {
  return response?.order?.id ?? response?.cart_id ?? null
}

export function publishPayinStatus(response: PayinStatusResponse): void {
  const key = payinStatusKey(response)
  if (!key) return
  for (const listener of [...(listeners.get(key) ?? [])]) listener(response)
}

export function subscribePayinStatus(key: string, listener: Listener): () => void {
  let set = listeners.get(key)
  if (!set) listeners.set(key, (set = new Set()))
  set.add(listener)
  return () => {
    set.delete(listener)
    if (!set.size) listeners.delete(key)
  }
}
