// `npm run demo`: copies the demo project (examples/demo) into a temporary git repository and runs a
// real loop there with the CLI and the scripted agent (examples/agent), from red to COMPLETE.
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join, resolve } from 'node:path'

const root = resolve(import.meta.dirname, '..')
const cli = join(root, 'dist', 'cli', 'index.js')
if (!existsSync(cli)) {
  console.error('dist/cli/index.js is missing: run `npm run bundle` first.')
  process.exit(1)
}
const work = mkdtempSync(join(tmpdir(), 'loop-demo-'))
cpSync(join(root, 'examples', 'demo'), work, { recursive: true })
const git = (...args) => execFileSync('git', args, { cwd: work, stdio: 'pipe' })
git('init', '-q', '-b', 'main')
git('-c', 'user.name=demo', '-c', 'user.email=demo@example.invalid', 'add', '-A')
git(
  '-c',
  'user.name=demo',
  '-c',
  'user.email=demo@example.invalid',
  'commit',
  '-qm',
  'The demo project, with seeded defects',
)

console.log(`demo project copied to ${work} (a git repository with seeded defects)`)
console.log('running: loop-controller run --loop-id demo\n')
const result = spawnSync(process.execPath, [cli, 'run', '--loop-id', 'demo'], {
  cwd: work,
  stdio: 'inherit',
  env: {
    ...process.env,
    // The demo's checks use the tools this package already installed (tsc, biome).
    PATH: `${join(root, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`,
    LOOP_DEMO_AGENT: join(root, 'examples', 'agent', 'agent.mjs'),
  },
})
console.log(`\nstate and audit trail: ${join(work, '.loop', 'demo')}`)
console.log(`  iterations: ${join(work, '.loop', 'demo', 'iterations')}`)
console.log(`  journey log: ${join(work, '.loop', 'demo', 'journey-log.jsonl')}`)
console.log(`  final report: ${join(work, '.loop', 'demo', 'final.md')}`)
console.log(`checkpoint commits: git -C ${work} log --oneline`)
process.exit(result.status ?? 1)
