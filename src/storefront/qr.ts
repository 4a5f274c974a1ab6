import qrcode from "qrcode-generator"

/** A QR code as one SVG path: draw it with `viewBox="0 0 size size"`, dark modules filled. */
export type QrSvg = {
  /** Side in modules, the 4-module quiet zone included. */
  size: number
  path: string
}

const QUIET_ZONE = 4

/** UTF-8 bytes as a one-byte-per-char string: the library's byte mode drops everything above 0xFF. */
function utf8Binary(text: string): string {
  let out = ""
  for (const byte of new TextEncoder().encode(text)) out += String.fromCharCode(byte)
  return out
}

/** Error correction M, smallest version that fits; null for empty text or text too long for a QR code. */
export function qrSvg(text: string): QrSvg | null {
  if (typeof text !== "string" || !text) return null
  const qr = qrcode(0, "M")
  try {
    qr.addData(utf8Binary(text), "Byte")
    qr.make()
  } catch {
    return null
  }
  const count = qr.getModuleCount()
  let path = ""
  for (let row = 0; row < count; row++) {
    let col = 0
    while (col < count) {
      if (!qr.isDark(row, col)) {
        col++
        continue
      }
      const start = col
      while (col < count && qr.isDark(row, col)) col++
      path += `M${start + QUIET_ZONE} ${row + QUIET_ZONE}h${col - start}v1h-${col - start}z`
    }
  }
  return { size: count + QUIET_ZONE * 2, path }
}
