import React from "react"
import { CreditCard } from "@medusajs/icons"
import { isPayinProvider } from "medusa-plugin-payin-storefront" // added

/* Map of payment provider_id to their title and icon. Add in any payment providers you want to use. */
export const paymentInfoMap: Record<
  string,
  { title: string; icon: React.JSX.Element }
> = {
  pp_system_default: {
    title: "Manual Payment",
    icon: <CreditCard />,
  },
  // added
  pp_payin_default: {
    title: "Bank transfer",
    icon: <CreditCard />,
  },
  // Add more payment providers here
}

export const isManual = (providerId?: string) => {
  return providerId?.startsWith("pp_system_default")
}

// added: any instance of the pay-in provider (pp_payin_<id>)
export const isPayin = (providerId?: string) =>
  !!providerId && isPayinProvider(providerId)
