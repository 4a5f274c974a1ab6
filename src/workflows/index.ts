// Public workflows of the plugin (`medusa-plugin-payin/workflows`).
export { applyPayinEvent } from "./apply-payin-event"
export type { ApplyPayinEventInput, ApplyPayinEventResult } from "./apply-payin-event"
