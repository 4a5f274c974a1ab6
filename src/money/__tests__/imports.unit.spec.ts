// The money module is bundled into the admin and the storefront kit (whose package may not need
// new dependencies): it imports no package at all, Medusa's included, only its own files and the
// status vocabulary (itself import-free).
import { readdirSync, readFileSync } from "fs"
import path from "path"

const dir = path.join(__dirname, "..")

describe("src/money imports no package", () => {
  it("imports only its own files and ../status", () => {
    const files = readdirSync(dir).filter((f) => f.endsWith(".ts"))
    expect(files).toEqual(expect.arrayContaining(["decimal.ts", "currency.ts", "display.ts", "fiat.ts", "received.ts", "index.ts"]))
    for (const file of files) {
      const text = readFileSync(path.join(dir, file), "utf8")
      const specifiers = [...text.matchAll(/\bfrom\s+["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']|\brequire\(\s*["']([^"']+)["']/g)].map((m) => m[1] ?? m[2] ?? m[3])
      for (const specifier of specifiers) {
        expect([file, specifier.startsWith("./") || specifier === "../status"]).toEqual([file, true])
      }
    }
  })
})
