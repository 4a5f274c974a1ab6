/**
 * Sets `vars` in process.env for the spec file (before the app boots: call it before appSpec /
 * storeSpec) and restores the environment as it was after the file's tests.
 */
export function envForFile(vars: Record<string, string>): void {
  const saved = { ...process.env }
  beforeAll(() => {
    Object.assign(process.env, vars)
  })
  afterAll(() => {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
    Object.assign(process.env, saved)
  })
}
