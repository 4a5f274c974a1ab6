// The demo storefront: one page built with the plugin's storefront kit (src/storefront) and
// @medusajs/js-sdk, bundled by esbuild when the server starts and served with a small node:http
// server. It talks to Medusa straight from the browser (CORS), like any storefront; the only
// server-side route is the sandbox's "simulate payment", which a real storefront does not have.
//
// startStorefront({ port, host, backendUrl, publishableKey, regionId, providerId, sandboxUrl })
//   → { url, close() }
import { createServer } from "node:http"
import { randomBytes } from "node:crypto"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"
import { z } from "zod"

const here = path.dirname(fileURLToPath(import.meta.url))

/** Bundles app.tsx (React, the kit from TypeScript source, js-sdk) into one browser script. */
export async function bundleStorefront() {
  const result = await build({
    entryPoints: [path.join(here, "app.tsx")],
    bundle: true,
    platform: "browser",
    format: "esm",
    target: ["es2020"],
    jsx: "automatic",
    minify: true,
    write: false,
    legalComments: "none",
    define: { "process.env.NODE_ENV": '"production"' },
    // the kit's React files start with "use client" (for Next.js); meaningless in this bundle
    logOverride: { "module-level-directive": "silent" },
    logLevel: "error",
  })
  return result.outputFiles[0].contents
}

const SimulateBody = z.object({
  payin_id: z.string().regex(/^[0-9a-f-]{8,64}$/i, "payin_id must be the service's transaction id"),
  action: z.enum(["pay", "expire"]).default("pay"),
})

function page(config, nonce) {
  const json = JSON.stringify(config).replace(/</g, "\\u003c")
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>Pay-in demo store</title>
<link rel="icon" href="data:,">
<style nonce="${nonce}">
:root{--shop-fg:#16181d;--shop-muted:#4b5160;--shop-bg:#f5f6f8;--shop-card:#fff;--shop-accent:#1d4ed8;--shop-focus:#b45309;--shop-border:#d0d4dc}
*{box-sizing:border-box}body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--shop-bg);color:var(--shop-fg);line-height:1.45}
</style>
</head>
<body>
<div id="root"></div>
<script id="demo-config" type="application/json">${json}</script>
<script type="module" src="/assets/app.js"></script>
</body>
</html>
`
}

async function readBody(req, limit = 4096) {
  let size = 0
  const chunks = []
  for await (const chunk of req) {
    size += chunk.length
    if (size > limit) throw Object.assign(new Error("body too large"), { status: 413 })
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString("utf8")
}

function send(res, status, type, body, headers = {}) {
  res.writeHead(status, { "content-type": type, "cache-control": "no-store", "x-content-type-options": "nosniff", ...headers })
  res.end(body)
}

export async function startStorefront({ port = 8000, host = "localhost", backendUrl, publishableKey, regionId, providerId, sandboxUrl }) {
  const bundle = await bundleStorefront()
  let url = ""

  const server = createServer(async (req, res) => {
    try {
      const { pathname } = new URL(req.url ?? "/", "http://storefront.local")
      if (req.method === "GET" && pathname === "/assets/app.js") {
        return send(res, 200, "text/javascript; charset=utf-8", bundle)
      }
      if (pathname === "/demo-api/sandbox") {
        // demo only: what the shopper's bank transfer would do, through the sandbox's control API
        if (req.method !== "POST") return send(res, 405, "application/json", JSON.stringify({ message: "POST only" }))
        let parsed
        try {
          parsed = SimulateBody.safeParse(JSON.parse(await readBody(req)))
        } catch (error) {
          return send(res, error.status ?? 400, "application/json", JSON.stringify({ message: "the body must be JSON" }))
        }
        if (!parsed.success) {
          return send(res, 400, "application/json", JSON.stringify({ message: parsed.error.issues.map((i) => i.message).join("; ") }))
        }
        const answer = await fetch(`${sandboxUrl}/_sandbox/transactions/${parsed.data.payin_id}/${parsed.data.action}`, { method: "POST" })
        return send(res, answer.status, "application/json", await answer.text())
      }
      if (req.method !== "GET" && req.method !== "HEAD") {
        return send(res, 405, "application/json", JSON.stringify({ message: "method not allowed" }))
      }
      // every other path is the single-page app (/, /checkout, /order/:id, /return)
      const nonce = randomBytes(12).toString("base64")
      const csp = [
        "default-src 'self'",
        `connect-src 'self' ${new URL(backendUrl).origin}`,
        "img-src 'self' data:",
        // the kit renders its own <style> element (React): inline styles are allowed, scripts are not
        "style-src 'self' 'unsafe-inline'",
        "script-src 'self'",
        `form-action 'self'`,
        "base-uri 'none'",
        "frame-ancestors 'none'",
      ].join("; ")
      const config = { backendUrl, publishableKey, regionId, providerId, storefrontUrl: url }
      return send(res, 200, "text/html; charset=utf-8", page(config, nonce), { "content-security-policy": csp, "referrer-policy": "no-referrer" })
    } catch (error) {
      send(res, 502, "application/json", JSON.stringify({ message: String(error?.message ?? error) }))
    }
  })

  await new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, host, resolve)
  })
  url = `http://${host}:${server.address().port}`
  return {
    url,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
