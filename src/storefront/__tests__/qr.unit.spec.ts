import qrcode from "qrcode-generator"
import { qrSvg } from "../qr"

/** Rebuilds the module grid from the path (M x y h w v1 h-w z per run). */
function grid(size: number, path: string): boolean[][] {
  const cells = Array.from({ length: size }, () => Array<boolean>(size).fill(false))
  const re = /M(\d+) (\d+)h(\d+)v1h-(\d+)z/g
  let consumed = 0
  for (const m of path.matchAll(re)) {
    const [x, y, w, back] = m.slice(1).map(Number)
    expect(back).toBe(w)
    for (let i = 0; i < w; i++) cells[y][x + i] = true
    consumed += m[0].length
  }
  expect(consumed).toBe(path.length)
  return cells
}

describe("qrSvg", () => {
  const text = "https://qr.nspk.ru/AS1000ABCDEF0123456789"

  it("draws exactly the library's modules inside a 4-module quiet zone", () => {
    const svg = qrSvg(text)!
    const qr = qrcode(0, "M")
    qr.addData(text, "Byte")
    qr.make()
    const n = qr.getModuleCount()
    expect(svg.size).toBe(n + 8)
    const cells = grid(svg.size, svg.path)
    for (let y = 0; y < svg.size; y++) {
      for (let x = 0; x < svg.size; x++) {
        const inside = x >= 4 && y >= 4 && x < n + 4 && y < n + 4
        expect(cells[y][x]).toBe(inside ? qr.isDark(y - 4, x - 4) : false)
      }
    }
  })

  it("is square with a QR version size and finder patterns in the corners", () => {
    const svg = qrSvg(text)!
    expect((svg.size - 8 - 17) % 4).toBe(0)
    const cells = grid(svg.size, svg.path)
    // the top-left finder pattern: a dark 7×7 ring around a 3×3 dark core
    expect(cells[4].slice(4, 11).every(Boolean)).toBe(true)
    expect(cells[5].slice(4, 11)).toEqual([true, false, false, false, false, false, true])
    expect(cells[7].slice(4, 11)).toEqual([true, false, true, true, true, false, true])
  })

  it("changes with the text", () => {
    expect(qrSvg("https://pay.example/a")!.path).not.toBe(qrSvg("https://pay.example/b")!.path)
  })

  it("encodes non-Latin text as UTF-8 rather than truncating characters", () => {
    // Truncating U+0430 (Cyrillic а) to one byte gives 0x30, the digit 0.
    expect(qrSvg("а")!.path).not.toBe(qrSvg("0")!.path)
  })

  it("is null for empty or oversized text", () => {
    expect(qrSvg("")).toBeNull()
    expect(qrSvg("x".repeat(5000))).toBeNull()
  })
})
