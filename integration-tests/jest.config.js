// Jest configuration for the whole repository (kept here so the top level stays clean).
// TEST_TYPE=unit        -> src/**/__tests__/*.unit.spec.ts, integration-tests/soak/*.unit.spec.ts (pure logic, no database)
// TEST_TYPE=integration -> integration-tests/**/*.spec.ts (real Medusa, real PostgreSQL, real HTTP)
// TEST_TYPE=soak        -> integration-tests/soak/**/*.soak.ts (npm run soak)
const path = require("path")
const { loadEnv } = require("@medusajs/framework/utils")

loadEnv("test", path.join(__dirname, "app"))

const transform = {
  "^.+\\.[jt]sx?$": [
    "@swc/jest",
    {
      jsc: {
        parser: { syntax: "typescript", decorators: true, tsx: true },
        transform: {
          legacyDecorator: true,
          decoratorMetadata: true,
          useDefineForClassFields: false,
          react: { runtime: "automatic" },
        },
        target: "es2021",
      },
    },
  ],
}

const base = {
  rootDir: "..",
  transform,
  testEnvironment: "node",
  moduleFileExtensions: ["js", "ts", "tsx", "json"],
  modulePathIgnorePatterns: ["dist/", "<rootDir>/.medusa/", "<rootDir>/.demo/", "<rootDir>/integration-tests/app/src/", "<rootDir>/integration-tests/storefront-next/"],
  setupFiles: ["<rootDir>/integration-tests/setup.js"],
}

const type = process.env.TEST_TYPE ?? "unit"

if (type === "unit") {
  module.exports = {
    ...base,
    // the soak's pure parts (its auditor's rules, schedules) beside it: integration-tests/soak/*.unit.spec.ts
    testMatch: ["<rootDir>/src/**/__tests__/**/*.unit.spec.[jt]s?(x)", "<rootDir>/integration-tests/soak/*.unit.spec.[jt]s?(x)"],
    testTimeout: 30000,
  }
} else if (type === "integration") {
  const workers = Number(process.env.PAYIN_TEST_WORKERS || 1)
  if (!Number.isInteger(workers) || workers < 1) throw new Error(`PAYIN_TEST_WORKERS="${process.env.PAYIN_TEST_WORKERS}": a whole number, 1 or more`)
  module.exports = {
    ...base,
    testMatch: ["<rootDir>/integration-tests/**/*.spec.[jt]s?(x)"],
    testPathIgnorePatterns: ["/node_modules/", "<rootDir>/integration-tests/app/", "<rootDir>/integration-tests/storefront-next/", "\\.unit\\.spec\\."],
    globalSetup: "<rootDir>/integration-tests/support/global-setup.mjs",
    globalTeardown: "<rootDir>/integration-tests/support/global-teardown.mjs",
    testTimeout: 180000,
    // One spec file at a time by default: on the project's 2-core machine two at a time took as
    // long (1,975 s against 2,015 s in band, README "Running the tests": the files are CPU-bound,
    // each ran 1.7-2.5x slower beside another). PAYIN_TEST_WORKERS=N runs N at a time, never two
    // heavy ones together (support/lanes-runner.cjs), for a machine with more cores. A worker is
    // replaced once it holds more than 1.5 GB after a file: every Medusa boot leaves memory
    // behind, and one process running all the files spent most of its time collecting garbage
    // (then ran out of heap at 4 GB after 45 files).
    ...(workers > 1 ? { runner: "<rootDir>/integration-tests/support/lanes-runner.cjs" } : {}),
    maxWorkers: workers,
    workerIdleMemoryLimit: "1.5GB",
  }
} else if (type === "bench") {
  module.exports = {
    ...base,
    testMatch: ["<rootDir>/integration-tests/bench/*.bench.[jt]s"],
    globalSetup: "<rootDir>/integration-tests/support/global-setup.mjs",
    globalTeardown: "<rootDir>/integration-tests/support/global-teardown.mjs",
    testTimeout: 900000,
  }
} else if (type === "soak") {
  // npm run soak (integration-tests/soak/cli.mjs): one file, its timeout set by the file from its length
  module.exports = {
    ...base,
    testMatch: ["<rootDir>/integration-tests/soak/**/*.soak.[jt]s"],
    globalSetup: "<rootDir>/integration-tests/support/global-setup.mjs",
    globalTeardown: "<rootDir>/integration-tests/support/global-teardown.mjs",
    maxWorkers: 1,
  }
} else {
  throw new Error(`Unknown TEST_TYPE "${type}": use "unit", "integration", "bench" or "soak"`)
}
