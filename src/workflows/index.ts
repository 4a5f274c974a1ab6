// Public workflows of the plugin (`medusa-plugin-payin/workflows`). The apply-path shared by the
// webhook route, reconciliation and the admin's "reconcile now" is exported here as it lands.
export {}
