"use server"

import { sdk } from "@lib/config"
import { HttpTypes } from "@medusajs/types"

// The starter's getRegion (without its cache options).

const regionMap = new Map<string, HttpTypes.StoreRegion>()

export const getRegion = async (countryCode: string) => {
  if (!regionMap.has(countryCode)) {
    const { regions } = await sdk.store.region.list()
    regions.forEach((region) => {
      region.countries?.forEach((c) => {
        regionMap.set(c?.iso_2 ?? "", region)
      })
    })
  }

  return regionMap.get(countryCode) ?? null
}
