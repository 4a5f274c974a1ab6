/** Tiny helpers to read renderToStaticMarkup output in tests (no DOM in the node test env). */

const decode = (s: string) =>
  s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#x27;/g, "'").replace(/&amp;/g, "&")

export type Found = { tag: string; attrs: Record<string, string>; html: string; text: string }

function parseAttrs(open: string): Record<string, string> {
  const attrs: Record<string, string> = {}
  for (const m of open.matchAll(/\s([\w:-]+)(?:="([^"]*)")?/g)) attrs[m[1]] = decode(m[2] ?? "")
  return attrs
}

/** Every element whose opening tag matches `selector` (an attribute like `data-payin="amount"`). */
export function findAll(html: string, selector: string): Found[] {
  const out: Found[] = []
  const re = /<([a-zA-Z][\w-]*)(\s[^>]*)?>/g
  for (let m = re.exec(html); m; m = re.exec(html)) {
    if (!(m[2] ?? "").includes(selector)) continue
    const name = m[1]
    const start = m.index + m[0].length
    let depth = 1
    const tags = new RegExp(`<(/?)${name}(?:\\s[^>]*)?>`, "g")
    tags.lastIndex = start
    let end = html.length
    if (!m[0].endsWith("/>")) {
      for (let t = tags.exec(html); t; t = tags.exec(html)) {
        depth += t[1] ? -1 : 1
        if (depth === 0) {
          end = t.index
          break
        }
      }
    } else {
      end = start
    }
    const inner = html.slice(start, end)
    out.push({ tag: m[0], attrs: parseAttrs(m[2] ?? ""), html: inner, text: decode(inner.replace(/<[^>]*>/g, "")) })
  }
  return out
}

export function find(html: string, selector: string): Found | undefined {
  return findAll(html, selector)[0]
}

/** Non-breaking and narrow spaces as plain spaces, for readable expectations. */
export const spaces = (s: string | undefined) => (s ?? "").replace(/[\u00a0\u202f]/g, " ")
