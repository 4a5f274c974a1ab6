import { PAYIN_CSS, PAYIN_THEME } from "../react/styles"

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  })
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}
function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return (hi + 0.05) / (lo + 0.05)
}

describe("default theme", () => {
  it.each([
    ["fg", "bg"],
    ["muted", "bg"],
    ["accent-fg", "accent"],
    ["accent", "bg"],
    ["success-fg", "success-bg"],
    ["danger-fg", "danger-bg"],
    ["info-fg", "info-bg"],
    ["warning-fg", "warning-bg"],
    ["muted", "info-bg"],
  ] as const)("%s on %s has at least 4.5:1 contrast", (fg, bg) => {
    expect(contrast(PAYIN_THEME[fg], PAYIN_THEME[bg])).toBeGreaterThanOrEqual(4.5)
  })

  it("has control borders and focus rings of at least 3:1", () => {
    expect(contrast(PAYIN_THEME["control-border"], PAYIN_THEME.bg)).toBeGreaterThanOrEqual(3)
    expect(contrast(PAYIN_THEME.focus, PAYIN_THEME.bg)).toBeGreaterThanOrEqual(3)
  })
})

describe("stylesheet", () => {
  const rule = (selector: string) => {
    const at = PAYIN_CSS.indexOf(`${selector}{`)
    expect(at).toBeGreaterThanOrEqual(0)
    return PAYIN_CSS.slice(at, PAYIN_CSS.indexOf("}", at))
  }

  it("makes buttons and links at least 44px tall", () => {
    expect(rule(".payin-copy")).toContain("min-height:44px")
    expect(rule(".payin-button")).toContain("min-height:44px")
  })

  it("shows a visible focus outline", () => {
    expect(rule(":where(.payin-root) :focus-visible")).toMatch(/outline:3px solid var\(--payin-focus/)
  })

  it("wraps long numbers and honours reduced motion", () => {
    expect(rule(".payin-value")).toContain("overflow-wrap:anywhere")
    expect(PAYIN_CSS).toMatch(/@media \(prefers-reduced-motion:reduce\)\{[^@]*animation:none!important/)
  })

  it("themes through --payin-* properties and scopes every rule to the kit", () => {
    for (const name of ["accent", "bg", "fg", "radius"]) expect(PAYIN_CSS).toContain(`var(--payin-${name},`)
    const selectors = PAYIN_CSS.replace(/@media[^{]*\{/g, "").match(/[^{}]+(?=\{)/g) ?? []
    for (const s of selectors.map((x) => x.trim()).filter((x) => x && !x.startsWith("@keyframes") && !/^\d+%$/.test(x))) {
      expect([s, s.startsWith(":where(.payin-root)")]).toEqual([s, true])
    }
  })
})
