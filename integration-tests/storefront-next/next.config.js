/**
 * The starter's next.config.js without its env check and image hosts (this app shows no images).
 * As in the starter, `next build` skips type errors and lint: run `tsc --noEmit` (strict) for them.
 *
 * @type {import('next').NextConfig}
 */
const nextConfig = {
  reactStrictMode: true,
  eslint: {
    ignoreDuringBuilds: true,
  },
  typescript: {
    ignoreBuildErrors: true,
  },
}

module.exports = nextConfig
