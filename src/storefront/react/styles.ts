"use client"

// Every rule is under `:where(.payin-root)`, so a host's own CSS wins with a single class.

/** Measured contrast (WCAG 2.x): text ≥ 6.7:1 (fg on bg 16.9:1), control borders 4.8:1; the QR code is always black on white. */
export const PAYIN_THEME = {
  bg: "#ffffff",
  fg: "#1a1d23",
  muted: "#4b5563",
  accent: "#1d4ed8",
  "accent-fg": "#ffffff",
  border: "#d1d5db",
  "control-border": "#6b7280",
  focus: "#1d4ed8",
  "success-bg": "#ecfdf3",
  "success-fg": "#05603a",
  "danger-bg": "#fef3f2",
  "danger-fg": "#912018",
  "info-bg": "#eff6ff",
  "info-fg": "#1e3a8a",
  "warning-bg": "#fffaeb",
  "warning-fg": "#7a2e0e",
  radius: "12px",
} as const

const v = (name: keyof typeof PAYIN_THEME) => `var(--payin-${name}, ${PAYIN_THEME[name]})`
const R = ":where(.payin-root)"

export const PAYIN_CSS = `
${R}{box-sizing:border-box;display:flex;flex-direction:column;gap:16px;width:100%;max-width:36rem;padding:20px;margin:0;background:${v("bg")};color:${v("fg")};border:1px solid ${v("border")};border-radius:${v("radius")};font:inherit;line-height:1.45;text-align:start}
${R} *,${R} *::before,${R} *::after{box-sizing:border-box}
${R} p{margin:0}
${R} .payin-caption{color:${v("muted")};font-size:.875rem}
${R} .payin-status{padding:10px 12px;border-radius:8px;font-weight:600;background:${v("info-bg")};color:${v("info-fg")}}
${R} .payin-status[data-tone=success]{background:${v("success-bg")};color:${v("success-fg")}}
${R} .payin-status[data-tone=danger]{background:${v("danger-bg")};color:${v("danger-fg")}}
${R} .payin-status[data-tone=warning]{background:${v("warning-bg")};color:${v("warning-fg")}}
${R} .payin-notice,${R} .payin-hint{color:${v("muted")};font-size:.875rem}
${R} .payin-fields{display:flex;flex-direction:column;gap:14px;margin:0}
${R} .payin-field{display:flex;flex-direction:column;gap:4px;min-width:0}
${R} .payin-label{color:${v("muted")};font-size:.875rem}
${R} .payin-value-row{display:flex;flex-wrap:wrap;align-items:center;gap:8px;margin:0}
${R} .payin-value{flex:1 1 auto;min-width:0;font-size:1.125rem;font-weight:600;font-variant-numeric:tabular-nums;overflow-wrap:anywhere;word-break:break-word;user-select:all;-webkit-user-select:all}
${R} .payin-value-amount{font-size:1.75rem;font-weight:700;line-height:1.2}
${R} .payin-value-link{font-size:.9375rem;font-weight:500}
${R} .payin-copy{flex:0 0 auto;min-height:44px;min-width:44px;padding:8px 14px;border:1px solid ${v("control-border")};border-radius:8px;background:${v("bg")};color:${v("fg")};font:inherit;font-weight:600;cursor:pointer;transition:background-color .15s,border-color .15s}
${R} .payin-copy:hover{background:${v("info-bg")}}
${R} .payin-copy[data-copied=true]{border-color:${v("success-fg")};color:${v("success-fg")};background:${v("success-bg")}}
${R} .payin-countdown{display:flex;flex-wrap:wrap;align-items:baseline;gap:4px 12px}
${R} .payin-time{font-size:1.5rem;font-weight:700;font-variant-numeric:tabular-nums}
${R} .payin-countdown[data-ended=true] .payin-time{color:${v("warning-fg")}}
${R} .payin-links{display:flex;flex-direction:column;align-items:stretch;gap:12px}
${R} .payin-qr{display:flex;flex-direction:column;align-items:center;gap:8px;margin:0}
${R} .payin-qr-code{display:block;width:200px;max-width:100%;height:auto;background:#fff}
${R} .payin-qr figcaption{text-align:center}
${R} .payin-button{display:flex;align-items:center;justify-content:center;min-height:44px;padding:10px 16px;border-radius:8px;font:inherit;font-weight:600;text-align:center;text-decoration:none;overflow-wrap:anywhere;cursor:pointer}
${R} .payin-button-primary{background:${v("accent")};color:${v("accent-fg")};border:1px solid ${v("accent")}}
${R} .payin-button-secondary{background:${v("bg")};color:${v("accent")};border:1px solid ${v("accent")}}
${R} .payin-button-primary:hover{text-decoration:underline}
${R} .payin-button-secondary:hover{background:${v("info-bg")}}
${R} .payin-outcome{display:flex;flex-direction:column;gap:6px;padding:16px;border-radius:8px;background:${v("danger-bg")};color:${v("danger-fg")}}
${R} .payin-outcome[data-outcome=paid]{background:${v("success-bg")};color:${v("success-fg")}}
${R} .payin-outcome-title{font-size:1.25rem;font-weight:700}
${R} .payin-actions{display:flex;flex-direction:column;gap:8px}
${R} .payin-actions:empty{display:none}
${R} .payin-pay-again{display:flex;flex-direction:column;gap:8px}
${R} .payin-button:disabled,${R} .payin-button[aria-disabled=true]{opacity:.7;cursor:progress}
${R} .payin-error{color:${v("danger-fg")};font-weight:600}
${R} .payin-busy::before{content:"";display:inline-block;width:.6em;height:.6em;margin-inline-end:.5em;border-radius:50%;background:currentColor;animation:payin-pulse 1.2s ease-in-out infinite}
@keyframes payin-pulse{50%{opacity:.25}}
${R} :focus-visible{outline:3px solid ${v("focus")};outline-offset:2px}
${R} .payin-sr{position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
@media (max-width:480px){
${R}{padding:16px;gap:14px}
${R} .payin-value-amount{font-size:1.5rem}
${R} .payin-links .payin-button{order:-1}
${R} .payin-qr-code{width:160px}
}
@media (prefers-reduced-motion:reduce){
${R} *,${R} *::before{animation:none!important;transition:none!important}
}
@media (forced-colors:active){
${R} .payin-status,${R} .payin-outcome{border:1px solid CanvasText}
}
`
