// `medusa exec ./seed/noop.ts`: boots the app and does nothing (tests check that a start fails or succeeds).
export default async function noop(): Promise<void> {
  console.log("noop ran")
}
