// Every relative link of the repository's READMEs resolves: the file (or folder) exists, relative
// to the README's folder (a link starting with "/" is relative to the repository root, as on
// GitHub), and an anchor (`#anchor` in the same file, or `file.md#anchor`) names a heading of the
// target file under GitHub's slug rules. http(s), mailto and other scheme links are skipped; links
// inside code (fenced blocks, inline code spans) are not links.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "fs"
import os from "os"
import path from "path"

const root = path.resolve(__dirname, "..", "..")

const READMES = [
  "README.md",
  "src/sandbox/README.md",
  "src/storefront/README.md",
  "src/api/README.md",
  "src/notifications/README.md",
  "src/telemetry/README.md",
  "integration-tests/README.md",
  "integration-tests/storefront-next/README.md",
]

/** GitHub's heading slug: lower case, punctuation removed (letters, digits, `_`, `-` and spaces kept), each space a `-`. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-")
}

/** The heading text as GitHub renders it: without inline code marks, link targets, images, HTML tags and emphasis marks. */
function headingText(raw: string): string {
  return raw
    .replace(/\s+#+\s*$/, "") // closing hashes
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/`/g, "")
    .replace(/(\*\*|__|\*)(.+?)\1/g, "$2")
}

type Line = { raw: string; text: string; number: number }

/** The lines outside fenced code blocks: as written (`raw`) and with inline code spans blanked (`text`). */
function proseLines(markdown: string): Line[] {
  const lines: Line[] = []
  let fence: string | null = null
  markdown.split("\n").forEach((text, i) => {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(text)
    if (fence) {
      if (marker && marker[1][0] === fence[0] && marker[1].length >= fence.length && text.trim() === marker[1]) fence = null
      return
    }
    if (marker) {
      fence = marker[1]
      return
    }
    lines.push({ raw: text, text: text.replace(/(`+)(?:(?!\1)[\s\S])*?\1/g, (m) => " ".repeat(m.length)), number: i + 1 })
  })
  return lines
}

/** The anchors a markdown file defines: its headings' slugs (duplicates get -1, -2, …) and HTML ids/names. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const { raw, text } of proseLines(markdown)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*)$/.exec(raw)
    if (heading) {
      const base = slug(headingText(heading[1]))
      const count = seen.get(base) ?? 0
      seen.set(base, count + 1)
      anchors.add(count === 0 ? base : `${base}-${count}`)
    }
    for (const m of text.matchAll(/<a\s[^>]*\b(?:id|name)=["']([^"']+)["']/gi)) anchors.add(m[1])
  }
  return anchors
}

type Link = { target: string; line: number }

/** Link targets of a markdown file: inline links and images `[text](target "title")`, reference definitions, HTML href/src. */
export function linksOf(markdown: string): Link[] {
  const links: Link[] = []
  for (const { text, number } of proseLines(markdown)) {
    let from = 0
    for (;;) {
      const at = text.indexOf("](", from)
      if (at < 0) break
      let i = at + 2
      while (text[i] === " ") i++
      let target = ""
      if (text[i] === "<") {
        const end = text.indexOf(">", i)
        target = text.slice(i + 1, end < 0 ? undefined : end)
        i = end < 0 ? text.length : end + 1
      } else {
        let depth = 0
        for (; i < text.length; i++) {
          const c = text[i]
          if (c === "(") depth++
          else if (c === ")") {
            if (depth === 0) break
            depth--
          } else if (c === " ") break
          target += c
        }
      }
      if (target) links.push({ target, line: number })
      from = Math.max(i, at + 2)
    }
    const definition = /^\s{0,3}\[[^\]]+\]:\s+<?([^\s>]+)>?/.exec(text)
    if (definition) links.push({ target: definition[1], line: number })
    for (const m of text.matchAll(/<(?:a|img)\s[^>]*\b(?:href|src)=["']([^"']+)["']/gi)) links.push({ target: m[1], line: number })
  }
  return links
}

/** What is wrong with the links of `file` (an absolute path), one sentence each; empty when every link resolves. */
export function brokenLinks(file: string, repositoryRoot: string): string[] {
  const markdown = readFileSync(file, "utf8")
  const problems: string[] = []
  const name = path.relative(repositoryRoot, file)
  for (const { target, line } of linksOf(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) continue // http(s), mailto, …
    const hash = target.indexOf("#")
    const filePart = decodeURI(hash < 0 ? target : target.slice(0, hash)).replace(/\?.*$/, "")
    const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1))
    const resolved = filePart === "" ? file : filePart.startsWith("/") ? path.join(repositoryRoot, filePart) : path.resolve(path.dirname(file), filePart)
    if (!existsSync(resolved)) {
      problems.push(`${name}:${line}: ${target}: ${path.relative(repositoryRoot, resolved)} does not exist`)
      continue
    }
    if (anchor === null || anchor === "") continue
    if (statSync(resolved).isDirectory() || !/\.(md|markdown)$/i.test(resolved)) continue // anchors of code views are GitHub's
    if (!anchorsOf(readFileSync(resolved, "utf8")).has(anchor)) {
      problems.push(`${name}:${line}: ${target}: no heading "#${anchor}" in ${path.relative(repositoryRoot, resolved)}`)
    }
  }
  return problems
}

describe("GitHub heading slugs", () => {
  it("lower-cases, drops punctuation but - and _, turns spaces into -", () => {
    expect(slug("Try it")).toBe("try-it")
    expect(slug(headingText("Benchmarks (`npm run bench`)"))).toBe("benchmarks-npm-run-bench")
    expect(slug(headingText("Accounting export (CSV)"))).toBe("accounting-export-csv")
    expect(slug(headingText("Ledger at scale (`npm run bench:ledger`, part of `npm run bench`)"))).toBe(
      "ledger-at-scale-npm-run-benchledger-part-of-npm-run-bench"
    )
    expect(slug(headingText("The store's own faults"))).toBe("the-stores-own-faults")
    expect(slug(headingText("`payin_transaction` → rows"))).toBe("payin_transaction--rows")
    expect(slug(headingText("Control API (`/_sandbox`, no key, no whitelist)"))).toBe("control-api-_sandbox-no-key-no-whitelist")
  })

  it("numbers duplicate headings and ignores headings in code blocks", () => {
    const anchors = anchorsOf("# A\n## Options\n```bash\n# Options\n```\n### Options\n#### Options ##\n")
    expect([...anchors]).toEqual(["a", "options", "options-1", "options-2"])
  })
})

describe("the link checker", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "readme-links-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it("finds a missing file, a missing anchor and a missing anchor of another file; skips code and URLs", () => {
    writeFileSync(path.join(dir, "other.md"), "# Other\n## Part (two)\n")
    writeFileSync(
      path.join(dir, "README.md"),
      [
        "# Top",
        "## Here",
        "[ok](#here) [ok](other.md) [ok](./other.md#part-two) [ok](https://example.com/x#y) [ok](mailto:a@b.c)",
        "![img](missing.png) [bad](#nowhere) [bad](other.md#part-three)",
        "`[code](not-a-link.md)`",
        "```md",
        "[code](also-not.md)",
        "```",
        "[nested](dir/(group)/file.md \"title\")",
      ].join("\n")
    )
    expect(brokenLinks(path.join(dir, "README.md"), dir)).toEqual([
      "README.md:4: missing.png: missing.png does not exist",
      "README.md:4: #nowhere: no heading \"#nowhere\" in README.md",
      "README.md:4: other.md#part-three: no heading \"#part-three\" in other.md",
      "README.md:9: dir/(group)/file.md: dir/(group)/file.md does not exist",
    ])
  })
})

describe.each(READMES)("%s", (readme) => {
  const file = path.join(root, readme)

  it("exists", () => {
    expect(existsSync(file)).toBe(true)
  })

  it("has only relative links and anchors that resolve", () => {
    expect(brokenLinks(file, root)).toEqual([])
  })
})
