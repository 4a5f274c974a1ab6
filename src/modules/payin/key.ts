/** Container key of the plugin's module (ledger, webhook inbox, settings); medusa-plugin.config re-exports it. */
export const PAYIN_MODULE = "payin"
