import { readdirSync, readFileSync } from "fs"
import { join } from "path"
import * as core from "../index"
import * as react from "../react"

const KIT = join(__dirname, "..")
const sources = (dir: string) =>
  readdirSync(dir)
    .filter((f) => /\.tsx?$/.test(f))
    .map((f) => ({ file: join(dir, f), text: readFileSync(join(dir, f), "utf8") }))
const imports = (text: string) => [...text.matchAll(/^(?:import|export)[^;]*?from\s+"([^"]+)"/gm)].map((m) => m[1])

describe("package entries", () => {
  it("re-exports every helper from the React entry", () => {
    for (const [name, value] of Object.entries(core)) expect([name, (react as Record<string, unknown>)[name]]).toEqual([name, value])
    expect(typeof react.PayinInstructions).toBe("function")
    expect(typeof react.PayinLiveInstructions).toBe("function")
    expect(typeof react.usePayinStatus).toBe("function")
  })

  it("keeps the helpers free of React and of server code", () => {
    for (const { file, text } of sources(KIT)) {
      for (const spec of imports(text)) {
        // besides its own files: the shared status vocabulary, provider id and error codes, which
        // import nothing, and the money module (src/money), which imports only itself and the status
        expect([file, spec]).toEqual([file, expect.stringMatching(/^(\.\/[\w-]+|qrcode-generator|\.\.\/status|\.\.\/provider-id|\.\.\/error-code|\.\.\/money\/[\w-]+)$/)])
      }
    }
    for (const shared of ["status.ts", "provider-id.ts", "error-code.ts"]) {
      expect([shared, imports(readFileSync(join(KIT, "..", shared), "utf8"))]).toEqual([shared, []])
    }
    for (const { file, text } of sources(join(KIT, "..", "money"))) {
      for (const spec of imports(text)) {
        expect([file, spec]).toEqual([file, expect.stringMatching(/^(\.\/[\w-]+|\.\.\/status)$/)])
      }
    }
  })

  it("makes every React file a client module importing only react and the kit", () => {
    for (const { file, text } of sources(join(KIT, "react"))) {
      expect([file, text.startsWith('"use client"')]).toEqual([file, true])
      for (const spec of imports(text)) {
        expect([file, spec]).toEqual([file, expect.stringMatching(/^(react|\.\/[\w-]+|\.\.\/[\w-]+)$/)])
      }
    }
  })
})
