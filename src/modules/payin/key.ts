export const PAYIN_MODULE = "payin"
