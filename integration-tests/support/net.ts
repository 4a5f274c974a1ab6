import http from "http"
import net from "net"

const { reservePort } = require("./port-reservation.js") as { reservePort: (port: number) => boolean }

/** A TCP port free on 127.0.0.1 right now, and handed out to no other test process lately. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await anyFreePort()
    if (reservePort(port)) return port
  }
  throw new Error("freePort: the OS kept handing out ports reserved by other test processes")
}

function anyFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.on("error", reject)
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo
      srv.close(() => resolve(port))
    })
  })
}

/**
 * An HTTP server on 127.0.0.1 for the enclosing block (or spec): listening before its tests,
 * closed after them with its open sockets; `url` is its address once started.
 */
export function localHttpServer(onRequest: http.RequestListener): { readonly url: string } {
  const local = { url: "" }
  const server = http.createServer(onRequest)
  const sockets = new Set<net.Socket>()
  server.on("connection", (s) => {
    sockets.add(s)
    s.on("close", () => sockets.delete(s))
  })
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    local.url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`
  })
  afterAll(async () => {
    for (const s of sockets) s.destroy()
    await new Promise((r) => server.close(r))
  })
  return local
}
