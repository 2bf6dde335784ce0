// Completes package-lock.json with Biome's per-platform binaries that the registry mirror here lacks.
//
// Biome ships one optional dependency per platform. When npm writes the lockfile against a mirror that
// has only some of them, it leaves the others out, and then `npm ci` refuses the lockfile ("Missing:
// @biomejs/cli-darwin-arm64 from lock file") on every machine. The entries added here are what npm
// writes from the full registry (version, os, cpu, libc, optional), without an integrity hash npm could
// not fetch; npm skips them on other platforms, so nothing is downloaded for them here.
// Run after any `npm install` that rewrites the lockfile: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from 'node:fs'

const lockPath = new URL('../package-lock.json', import.meta.url)
const lock = JSON.parse(readFileSync(lockPath, 'utf8'))
const biome = lock.packages['node_modules/@biomejs/biome']
if (!biome) {
  console.log('complete-lockfile: no @biomejs/biome in the lockfile; nothing to do')
  process.exit(0)
}
const platforms = {
  'android-arm64': { os: 'android', cpu: 'arm64' },
  'android-x64': { os: 'android', cpu: 'x64' },
  'darwin-arm64': { os: 'darwin', cpu: 'arm64' },
  'darwin-x64': { os: 'darwin', cpu: 'x64' },
  'linux-arm64': { os: 'linux', cpu: 'arm64', libc: 'glibc' },
  'linux-arm64-musl': { os: 'linux', cpu: 'arm64', libc: 'musl' },
  'linux-x64': { os: 'linux', cpu: 'x64', libc: 'glibc' },
  'linux-x64-musl': { os: 'linux', cpu: 'x64', libc: 'musl' },
  'win32-arm64': { os: 'win32', cpu: 'arm64' },
  'win32-x64': { os: 'win32', cpu: 'x64' },
}
const added = []
for (const name of Object.keys(biome.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`
  const platform = platforms[name.replace('@biomejs/cli-', '')]
  if (lock.packages[key] || !platform) continue
  lock.packages[key] = {
    version: biome.optionalDependencies[name],
    cpu: [platform.cpu],
    dev: true,
    ...(platform.libc ? { libc: [platform.libc] } : {}),
    license: biome.license,
    optional: true,
    os: [platform.os],
    engines: biome.engines,
  }
  added.push(name)
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
)
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`)
console.log(`complete-lockfile: ${added.length ? `added ${added.join(', ')}` : 'already complete'}`)
