// The keyboard focus ring as the browser draws it, and its contrast (WCAG 2.x relative luminance).
// axe-core has no rule for focus indicators (WCAG 1.4.11 asks 3:1 for them against what is next
// to them), so the browser tests reach a control by keyboard and measure its computed outline.
import type { Locator } from "playwright-core"

export type Rgba = { r: number; g: number; b: number; a: number }

/** A CSS colour as getComputedStyle gives it (`rgb(…)`, `rgba(…)`), or `#rrggbb`. */
export function parseColor(css: string): Rgba {
  const six = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(css.trim())
  if (six) return { r: parseInt(six[1], 16), g: parseInt(six[2], 16), b: parseInt(six[3], 16), a: 1 }
  const fn = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)(?:\s*[,/]\s*([\d.]+))?\s*\)$/.exec(css.trim())
  if (!fn) throw new Error(`not a colour this check reads: ${css}`)
  return { r: Number(fn[1]), g: Number(fn[2]), b: Number(fn[3]), a: fn[4] === undefined ? 1 : Number(fn[4]) }
}

/** `top` painted over the opaque `bottom`. */
export function over(top: Rgba, bottom: Rgba): Rgba {
  const mix = (t: number, b: number) => t * top.a + b * (1 - top.a)
  return { r: mix(top.r, bottom.r), g: mix(top.g, bottom.g), b: mix(top.b, bottom.b), a: 1 }
}

function luminance({ r, g, b }: Rgba): number {
  const linear = (c: number) => {
    const s = c / 255
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
  }
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
}

/** WCAG contrast ratio of two opaque colours, 1 to 21. */
export function contrastRatio(a: Rgba | string, b: Rgba | string): number {
  const [la, lb] = [a, b].map((c) => luminance(typeof c === "string" ? parseColor(c) : c))
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05)
}

export type FocusRing = {
  style: string
  widthPx: number
  /** The outline's colour, painted over what is behind it. */
  color: Rgba
  /** The opaque colour the ring is drawn on: the parent's background (the ring sits outside the control). */
  behind: Rgba
  contrast: number
}

/** The colour as #rrggbb (channels rounded), for comparing and printing. */
export const hex = (c: Rgba): string => "#" + [c.r, c.g, c.b].map((v) => Math.round(v).toString(16).padStart(2, "0")).join("")

/**
 * Focuses the control by keyboard (focus, Shift+Tab, Tab: the browser then shows :focus-visible as
 * it does for a keyboard user) and reads the ring it draws. Fails when the control did not get
 * keyboard focus back, so a ring is never measured on the wrong element.
 */
export async function focusRing(control: Locator): Promise<FocusRing> {
  const page = control.page()
  await control.focus()
  await page.keyboard.press("Shift+Tab")
  await page.keyboard.press("Tab")
  const read = await control.evaluate((el) => {
    const style = getComputedStyle(el)
    // the backgrounds from the parent up to the first opaque one (the canvas is white)
    const layers: string[] = []
    for (let node = el.parentElement; node; node = node.parentElement) {
      const bg = getComputedStyle(node).backgroundColor
      layers.push(bg)
      if (/^rgb\(/.test(bg)) break
    }
    return {
      focused: document.activeElement === el && el.matches(":focus-visible"),
      style: style.outlineStyle,
      width: style.outlineWidth,
      color: style.outlineColor,
      layers,
    }
  })
  if (!read.focused) throw new Error("the control did not take keyboard focus (Shift+Tab, Tab)")
  const behind = read.layers.reduceRight<Rgba>((under, layer) => over(parseColor(layer), under), { r: 255, g: 255, b: 255, a: 1 })
  const color = over(parseColor(read.color), behind)
  return { style: read.style, widthPx: parseFloat(read.width), color, behind, contrast: contrastRatio(color, behind) }
}

/**
 * Fails unless the control, focused by keyboard, shows a solid ring at least 2 px wide at 3:1 or
 * more against what is behind it, and, when `color` is given, in that colour (whose rule won).
 */
export async function expectFocusRing(control: Locator, what: string, color?: string): Promise<FocusRing> {
  const ring = await focusRing(control)
  const seen = `${what}: ${ring.style} ${ring.widthPx}px ${hex(ring.color)} on ${hex(ring.behind)}, ${ring.contrast.toFixed(2)}:1`
  const problems = [
    ring.style === "none" || ring.style === "hidden" ? "no outline" : null,
    ring.widthPx < 2 ? "thinner than 2 px" : null,
    ring.contrast < 3 ? "under 3:1 (WCAG 1.4.11)" : null,
    color !== undefined && hex(ring.color) !== hex(parseColor(color)) ? `not ${color.toLowerCase()}: another rule's ring` : null,
  ].filter(Boolean)
  if (problems.length) throw new Error(`focus ring of ${seen}: ${problems.join("; ")}`)
  return ring
}
