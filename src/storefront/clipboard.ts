/** The async Clipboard API where allowed, else `execCommand("copy")` (plain http pages, older banking-app WebViews). */
export async function copyText(text: string): Promise<boolean> {
  if (typeof navigator !== "undefined" && navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text)
      return true
    } catch {
      // denied or not a secure context: try the fallback
    }
  }
  if (typeof document === "undefined" || !document.body) return false
  const active = document.activeElement as HTMLElement | null
  // The textarea steals focus; give it back so keyboard users stay on the copy button.
  const previous = active && typeof active.focus === "function" ? active : null
  const area = document.createElement("textarea")
  area.value = text
  area.setAttribute("readonly", "")
  // Off-screen but not display:none (hidden elements cannot be selected); 16px stops iOS zooming.
  area.style.cssText = "position:fixed;top:0;left:-9999px;opacity:0;font-size:16px"
  document.body.appendChild(area)
  let copied = false
  try {
    area.select()
    area.setSelectionRange(0, text.length)
    copied = document.execCommand("copy")
  } catch {
    copied = false
  } finally {
    area.remove()
    previous?.focus()
  }
  return copied
}
