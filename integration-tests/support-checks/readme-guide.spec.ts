// The README's Next.js starter guide is quoted from the storefront the browser spec builds and
// runs (integration-tests/storefront-next, checked by integration-tests/browser/next-storefront.spec.ts).
// Every code block of the guide is preceded by `<!-- file: <path in the repository> -->` and must be
// that file, or a contiguous part of it (a "…" line in the block stands for lines left out), so the
// guide cannot drift from code that compiles and passes in a real browser.
import { existsSync, readFileSync } from "fs"
import path from "path"

const root = path.resolve(__dirname, "..", "..")
const readme = readFileSync(path.join(root, "README.md"), "utf8")

const GUIDE_START = "### Adding it to the Next.js starter storefront"
const start = readme.indexOf(GUIDE_START)
const end = readme.indexOf("\n## ", start)
const guide = start >= 0 ? readme.slice(start, end < 0 ? undefined : end) : ""

type Quote = { file: string; code: string; line: number }
const quotes: Quote[] = [...guide.matchAll(/<!-- file: ([^\s]+) -->\n```[a-z]*\n([\s\S]*?)\n```/g)].map((m) => ({
  file: m[1],
  code: m[2],
  line: readme.slice(0, start + (m.index ?? 0)).split("\n").length,
}))

const normalize = (text: string) =>
  text
    .split("\n")
    .map((l) => l.replace(/\s+$/, ""))
    .join("\n")

/** True when `code` is `text` or a part of it; a line "…" (alone, any indentation) skips lines. */
function isQuoteOf(code: string, text: string): boolean {
  const pieces = normalize(code)
    .split(/\n[ \t]*(?:\/\/ )?…\n/)
    .map((p) => p.replace(/^\n+|\n+$/g, ""))
  const body = normalize(text)
  let from = 0
  for (const piece of pieces) {
    const at = body.indexOf(piece, from)
    if (at < 0) return false
    from = at + piece.length
  }
  return true
}

describe("README: the Next.js starter guide", () => {
  it("exists and quotes the tested storefront's files", () => {
    expect(start).toBeGreaterThan(0)
    expect(quotes.length).toBeGreaterThanOrEqual(6)
    for (const q of quotes) expect([q.file, q.file.startsWith("integration-tests/storefront-next/")]).toEqual([q.file, true])
    // every code block of the guide carries a file marker (no unchecked code), except shell commands
    const opening = [...guide.matchAll(/^```([a-z]*)\n[\s\S]*?^```$/gm)].map((m) => m[1])
    expect(opening.filter((lang) => lang !== "sh").length).toBe(quotes.length)
  })

  it.each(quotes.map((q) => [`${q.file} (README line ${q.line})`, q] as const))("matches %s", (_name, q) => {
    const file = path.join(root, q.file)
    expect([q.file, existsSync(file)]).toEqual([q.file, true])
    expect([q.file, isQuoteOf(q.code, readFileSync(file, "utf8"))]).toEqual([q.file, true])
  })

  it("names only starter files that exist in the app (each step's file)", () => {
    for (const [, rel] of guide.matchAll(/`(src\/[^`\s]+\.(?:tsx?|js))`/g)) {
      expect([rel, existsSync(path.join(root, "integration-tests", "storefront-next", rel))]).toEqual([rel, true])
    }
  })
})
