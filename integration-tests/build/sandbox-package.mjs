// Fourth step of `npm run build`: assembles the sandbox as its own npm package,
// `medusa-plugin-payin-sandbox`, in .medusa/sandbox (publish with `npm publish ./.medusa/sandbox`).
// It carries the `payin-sandbox` command and `startSandbox()`, with the sandbox's HTTP server
// (hono, @hono/node-server) as its own dependencies: a production store installs the plugin
// without them, a developer adds this package where the sandbox runs (a store's devDependencies,
// a CI job, `npx`).
//
// The package is defined by src/sandbox/package.json (name, bin, entries, dependencies) and
// src/sandbox/README.md. Its files are the ones `medusa plugin:build` and the declaration pass
// already wrote to .medusa/server: the closure of relative requires from the library entry and
// the command, kept at their relative paths under lib/ (the sandbox shares src/client's schemas
// and signature code with the plugin). The build fails when a shipped file requires a package the
// sandbox does not declare, when a declared range differs from the plugin's own package.json
// (dependencies or devDependencies: the repository's tests run the same versions), or when the
// command lost its shebang.
import { chmodSync, existsSync, readFileSync } from "fs"
import path from "path"
import { built, closure, plugin, readManifest, root, writePackage } from "./package-closure.mjs"

const out = path.join(root, ".medusa", "sandbox")
const sandbox = readManifest("sandbox", { devDependenciesToo: true })
const { manifest, problems } = sandbox

// The library entry (every file it reaches needs its declaration) and the command (the files only
// it reaches have none: nothing imports them, and the declaration pass starts from the library entry).
const library = path.join(built, "src", "sandbox", "index.js")
const command = path.join(built, "src", "sandbox", "cli.js")
const files = closure([[command, false], [library, true]], sandbox, problems)
if (existsSync(command) && !readFileSync(command, "utf8").startsWith("#!/usr/bin/env node\n")) {
  problems.push(`${path.relative(root, command)} does not start with "#!/usr/bin/env node"`)
}
const bin = Object.values(manifest.bin ?? {})
if (bin.length !== 1 || path.join(built, bin[0].replace(/^lib\//, "src/")) !== command) {
  problems.push(`src/sandbox/package.json's bin must name lib/sandbox/cli.js, got ${JSON.stringify(manifest.bin)}`)
}

if (problems.length) {
  console.error(`sandbox package: ${problems.join("\n")}`)
  process.exit(1)
}

const { lib, name } = writePackage(out, "sandbox", manifest, files, ["lib", "README.md"])
chmodSync(path.join(lib, "sandbox", "cli.js"), 0o755)
console.log(`sandbox package: ${name}@${plugin.version} in ${path.relative(root, out)} (${files.size} files)`)
