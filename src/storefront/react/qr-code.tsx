"use client"
import { useMemo } from "react"
import { qrSvg } from "../qr"

/** A QR code as inline SVG, black on white whatever the theme (scanners need the contrast). */
export function QrCode({ text, label }: { text: string; label: string }) {
  const qr = useMemo(() => qrSvg(text), [text])
  if (!qr) return null
  return (
    <svg
      className="payin-qr-code"
      role="img"
      aria-label={label}
      viewBox={`0 0 ${qr.size} ${qr.size}`}
      width={qr.size * 5}
      height={qr.size * 5}
      shapeRendering="crispEdges"
      xmlns="http://www.w3.org/2000/svg"
    >
      <rect width={qr.size} height={qr.size} fill="#fff" />
      <path d={qr.path} fill="#000" />
    </svg>
  )
}
