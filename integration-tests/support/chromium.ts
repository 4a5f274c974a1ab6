// A real Chromium for the admin's browser tests: Debian's package, installed when absent (as root),
// driven by playwright-core.
import { ensureDebianPackage } from "./debian"
import { Browser, BrowserContext, Page, chromium } from "playwright-core"

const CHROMIUM = {
  pkg: "chromium",
  candidates: ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"],
  envVar: "CHROMIUM_PATH",
  otherwise: "",
  tag: "[browser]",
}

/** The path of a Chromium binary; installs Debian's `chromium` package when there is none. */
export function ensureChromium(log: (line: string) => void = console.log): string {
  return ensureDebianPackage(CHROMIUM, log)
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: ensureChromium(),
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
    ],
  })
}

/** Logs into the Medusa admin at `adminUrl` (…/app) and returns the page on the dashboard. */
export async function adminLogin(
  browser: Browser,
  adminUrl: string,
  credentials: { email: string; password: string },
  { language = "en" }: { language?: string } = {}
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, locale: language === "ru" ? "ru-RU" : "en-US" })
  // the dashboard keeps its language in localStorage "lng"
  await context.addInitScript((lng) => window.localStorage.setItem("lng", lng), language)
  const page = await context.newPage()
  page.setDefaultTimeout(60_000)
  // medusa develop compiles the dashboard on the first visit (tens of seconds on 2 cores)
  await page.goto(`${adminUrl}/login`, { timeout: 180_000 })
  await page.locator('input[name="email"]').fill(credentials.email, { timeout: 180_000 })
  await page.locator('input[name="password"]').fill(credentials.password)
  await page.locator('button[type="submit"]').click()
  await page.waitForURL((url) => !url.pathname.endsWith("/login"), { timeout: 120_000 })
  return { context, page }
}
