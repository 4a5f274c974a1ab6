import React from "react"
import { CreditCard } from "@medusajs/icons"

/* Map of payment provider_id to their title and icon. Add in any payment providers you want to use. */
export const paymentInfoMap: Record<
  string,
  { title: string; icon: React.JSX.Element }
> = {
  pp_system_default: {
    title: "Manual Payment",
    icon: <CreditCard />,
  },
  pp_payin_default: {
    title: "Bank transfer",
    icon: <CreditCard />,
  },
  // Add more payment providers here
}

export const isManual = (providerId?: string) => {
  return providerId?.startsWith("pp_system_default")
}
