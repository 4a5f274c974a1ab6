// One demo store (`npm run demo` as a child process) and one Chromium for every browser test: the
// demo's first start (migrations, seed, sample pay-ins) and the dashboard's first compile are the
// slow parts, so the admin and storefront tests share them (browser.spec.ts runs both).
// Screenshots go to PAYIN_SCREENSHOTS_DIR when set (the README's come from there), else to a
// temporary folder that is kept; their paths are printed.
import { mkdirSync, mkdtempSync, rmSync } from "fs"
import os from "os"
import path from "path"
import type { Browser, Page } from "playwright-core"
import { DemoInfo, RunningDemo, makeDemoDir, readDemo, startDemo, stopAllDemos } from "../demo/demo-process"
import { ensureChromium, launchBrowser } from "../support/chromium"
import { freePort } from "../support/net"

export type BrowserSuite = {
  readonly demo: DemoInfo
  readonly browser: Browser
  /** Saves a full-page screenshot as <name>.png in the screenshots folder. */
  shot(page: Page, name: string): Promise<void>
  /** The sandbox's control API (the shopper's bank, the service's clock). */
  sandbox(method: string, route: string, body?: unknown): Promise<any>
  /** A call to the demo store's API (admin calls log in as the demo's admin first). */
  api(method: string, route: string, options?: { body?: unknown; admin?: boolean; store?: boolean }): Promise<any>
}

export function browserSuite(): BrowserSuite {
  const demoDir = makeDemoDir("payin-browser-test-")
  // kept after the run (their paths are printed); PAYIN_SCREENSHOTS_DIR for a fixed place
  const shots = process.env.PAYIN_SCREENSHOTS_DIR || mkdtempSync(path.join(os.tmpdir(), "payin-screenshots-"))
  mkdirSync(shots, { recursive: true })
  let running: RunningDemo | null = null
  let demo: DemoInfo | undefined
  let browser: Browser | undefined
  let adminToken: string | undefined

  const json = async (url: string, init: RequestInit) => {
    const res = await fetch(url, init)
    const text = await res.text()
    if (res.status >= 400) throw new Error(`${init.method ?? "GET"} ${url}: ${res.status} ${text}`)
    return text ? JSON.parse(text) : null
  }

  const suite: BrowserSuite = {
    get demo() {
      if (!demo) throw new Error("the demo is not up")
      return demo
    },
    get browser() {
      if (!browser) throw new Error("the browser is not up")
      return browser
    },
    async shot(page, name) {
      const file = path.join(shots, `${name}.png`)
      await page.screenshot({ path: file, fullPage: true })
      console.log(`[browser] screenshot ${file}`)
    },
    sandbox(method, route, body) {
      return json(`${suite.demo.sandboxUrl}${route}`, {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    },
    async api(method, route, { body, admin = false, store = false } = {}) {
      const headers: Record<string, string> = body === undefined ? {} : { "content-type": "application/json" }
      if (admin) {
        adminToken ??= (
          await json(`${suite.demo.backendUrl}/auth/user/emailpass`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ email: suite.demo.adminEmail, password: suite.demo.adminPassword }),
          })
        ).token
        headers.authorization = `Bearer ${adminToken}`
      }
      if (store) headers["x-publishable-api-key"] = suite.demo.publishableKey
      return json(`${suite.demo.backendUrl}${route}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    },
  }

  beforeAll(async () => {
    const chromiumStarted = Date.now()
    const executable = ensureChromium()
    console.log(`[browser] chromium ${executable} (${((Date.now() - chromiumStarted) / 1000).toFixed(1)} s)`)
    const started = Date.now()
    // the plugin's health checked (and its alerts sent) every 5 s instead of every minute
    running = startDemo({ demoDir, port: await freePort(), extraEnv: { PAYIN_HEALTH_CHECK_INTERVAL_SECONDS: "5" } })
    await running.ready
    console.log(`[browser] demo up in ${((Date.now() - started) / 1000).toFixed(1)} s`)
    demo = readDemo(demoDir)
    browser = await launchBrowser()
  })

  afterAll(async () => {
    await browser?.close().catch(() => undefined)
    await stopAllDemos()
    rmSync(demoDir, { recursive: true, force: true })
    console.log(`[browser] screenshots in ${shots}`)
  })

  return suite
}
