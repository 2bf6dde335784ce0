#!/usr/bin/env node
// Installs the real agent CLIs the agent suite runs (`npm run test:agents`), pinned, from the npm
// registry, into a cache folder outside node_modules (their native binaries are hundreds of MB and no
// part of `npm ci`): ${LOOP_AGENTS_DIR:-~/.cache/loop-controller/agents}/<name>@<version>/.
// No install script runs: the platform package's binary is used directly.
//
//   node scripts/install-agents.mjs [claude|codex|all]   prints "<name> <absolute path of the binary>"
//
// Exits 1 with one line saying why when the registry cannot be reached or the platform has no build.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'

/** The pins: the CLI's package, and where its platform package keeps the binary. */
export const AGENT_CLIS = {
  claude: {
    package: '@anthropic-ai/claude-code',
    version: '2.1.331',
    binary: (platform) => join('node_modules', '@anthropic-ai', `claude-code-${platform}`, 'claude'),
  },
  codex: {
    package: '@openai/codex',
    version: '0.169.0',
    binary: (platform) =>
      join('node_modules', '@openai', `codex-${platform}`, 'vendor', CODEX_TRIPLES[platform] ?? '', 'bin', 'codex'),
  },
}

const CODEX_TRIPLES = {
  'linux-x64': 'x86_64-unknown-linux-musl',
  'linux-arm64': 'aarch64-unknown-linux-musl',
  'darwin-x64': 'x86_64-apple-darwin',
  'darwin-arm64': 'aarch64-apple-darwin',
}

export function agentsDir() {
  return process.env.LOOP_AGENTS_DIR || join(homedir(), '.cache', 'loop-controller', 'agents')
}

/** Installs `name` when it is not there yet; returns the binary's path. Throws with a reason. */
export function installAgent(name) {
  const cli = AGENT_CLIS[name]
  if (!cli) throw new Error(`unknown agent CLI '${name}': expected one of ${Object.keys(AGENT_CLIS).join(', ')}`)
  const platform = `${process.platform}-${process.arch}`
  const folder = join(agentsDir(), `${name}@${cli.version}`)
  const binary = join(folder, cli.binary(platform))
  if (existsSync(binary)) return binary
  mkdirSync(folder, { recursive: true })
  const npm = spawnSync(
    'npm',
    [
      'install',
      '--prefix',
      folder,
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `${cli.package}@${cli.version}`,
    ],
    { encoding: 'utf8', timeout: 600_000 },
  )
  if (npm.status !== 0) {
    const why = (npm.stderr || npm.error?.message || `npm exited ${npm.status}`).trim().split('\n').slice(-3).join(' ')
    throw new Error(`could not install ${cli.package}@${cli.version} from the npm registry: ${why}`)
  }
  if (!existsSync(binary))
    throw new Error(`${cli.package}@${cli.version} has no build for ${platform} (looked for ${binary})`)
  return binary
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const wanted = process.argv[2] ?? 'all'
  const names = wanted === 'all' ? Object.keys(AGENT_CLIS) : [wanted]
  try {
    for (const name of names) console.log(`${name} ${installAgent(name)}`)
  } catch (error) {
    console.error(`install-agents: ${error.message}`)
    process.exit(1)
  }
}
