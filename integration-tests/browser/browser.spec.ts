// The demo store in a real browser (Debian's Chromium via playwright-core): the admin first, then
// the storefront (whose expiry test moves the sandbox's clock, which ends every open pay-in).
import { adminTests } from "./admin-ui.tests"
import { browserSuite } from "./suite"
import { storefrontTests } from "./storefront.tests"

jest.setTimeout(900_000)

const suite = browserSuite()

describe("admin in a browser", () => adminTests(suite))
describe("demo storefront in a browser", () => storefrontTests(suite))
