// End to end: which of the bundle's chunks (ncc's dist/<n>.index.js) a job loads, by its store. Every
// node process of the sandbox's jobs starts with a module hook (NODE_OPTIONS) that logs each file of
// dist/ it loads. A loop on the `git` store (the default), with the dashboard, never loads the chunks of
// `@actions/cache`, `@actions/artifact` or the Azure blob SDKs; a loop on the `cache` store loads the
// cache client's chunk and never the artifact client's or the artifact store's.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it, onTestFinished } from 'vitest'
import {
  ACTION_DIR,
  checkOperationsExercised,
  describeJobs,
  expectFaithful,
  MINUTE,
  startScenario,
} from './fixtures.js'

checkOperationsExercised(import.meta.url)

const DIST = join(ACTION_DIR, 'dist')

/** The chunks of dist/ whose source maps name a source path containing `part`. */
function chunksWith(part: string): string[] {
  return readdirSync(DIST).filter((name) => {
    if (!/^\d+\.index\.js$/.test(name)) return false
    const map = JSON.parse(readFileSync(join(DIST, `${name}.map`), 'utf8')) as { sources: string[] }
    return map.sources.some((source) => source.includes(part))
  })
}

/** A module hook for NODE_OPTIONS that appends each dist/ file a process loads to a log; returns both. */
function loadLog(): { nodeOptions: string; loaded: () => string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'loop-store-chunks-'))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  const log = join(dir, 'loaded.log')
  writeFileSync(log, '')
  const prefix = pathToFileURL(DIST).href
  writeFileSync(
    join(dir, 'hooks.mjs'),
    [
      "import { appendFileSync } from 'node:fs'",
      `const prefix = ${JSON.stringify(`${prefix}/`)}`,
      'export async function load(url, context, next) {',
      `  if (url.startsWith(prefix)) appendFileSync(${JSON.stringify(log)}, url.slice(prefix.length) + '\\n')`,
      '  return next(url, context)',
      '}',
      '',
    ].join('\n'),
  )
  writeFileSync(
    join(dir, 'register.mjs'),
    `import { register } from 'node:module'\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)})\n`,
  )
  return {
    nodeOptions: `--import ${pathToFileURL(join(dir, 'register.mjs')).href}`,
    loaded: () => readFileSync(log, 'utf8').split('\n').filter(Boolean),
  }
}

const CACHE_CLIENT = 'node_modules/@actions/cache/'
const ARTIFACT_CLIENT = 'node_modules/@actions/artifact/'
const BLOB_SDK = 'node_modules/@azure/'

/** A two-iteration loop run with `workflowWith` while the hook logs what each job loads: its jobs and that log. */
async function loopLoggingChunks(loopId: string, workflowWith: Record<string, string>) {
  const hook = loadLog()
  const scenario = await startScenario({
    steps: 2,
    workflowWith,
    sandbox: { extraEnv: { NODE_OPTIONS: hook.nodeOptions } },
  })
  await scenario.sandbox.dispatch({ 'loop-id': loopId })
  const jobs = await scenario.sandbox.waitForIdle(2 * MINUTE)
  expect(
    jobs.map((job) => job.outputs.status),
    describeJobs(jobs),
  ).toEqual(['running', 'complete'])
  expectFaithful(scenario)
  return { jobs, loaded: hook.loaded() }
}

describe('the action bundle in the sandbox: the chunks a job loads, by its store', () => {
  it(
    'a loop on the git store, with the dashboard, never loads the cache or artifact clients or the Azure SDKs',
    async () => {
      const heavy = [...new Set([...chunksWith(CACHE_CLIENT), ...chunksWith(ARTIFACT_CLIENT), ...chunksWith(BLOB_SDK)])]
      expect(heavy.length, 'the bundle has the clients in chunks of their own').toBeGreaterThan(0)
      const { jobs, loaded } = await loopLoggingChunks('on-git', { dashboard: 'true' })
      expect(jobs[0]!.outputs['state-path']).toMatch(/^git branch /)
      // The hook saw every job's action start: a log it never wrote would prove nothing.
      expect(loaded.filter((file) => file === 'index.js').length).toBeGreaterThanOrEqual(jobs.length)
      expect(loaded.filter((file) => heavy.includes(file))).toEqual([])
    },
    3 * MINUTE,
  )

  it(
    'a loop on the cache store loads the cache client, never the artifact client or the artifact store',
    async () => {
      const cacheClient = chunksWith(CACHE_CLIENT)
      const artifact = [...new Set([...chunksWith(ARTIFACT_CLIENT), ...chunksWith('src/adapters/stores/artifact-')])]
      expect(cacheClient.length).toBeGreaterThan(0)
      expect(artifact.length).toBeGreaterThan(0)
      const { jobs, loaded } = await loopLoggingChunks('on-cache', { store: 'cache' })
      expect(jobs[0]!.outputs['state-path']).toMatch(/^actions cache keys /)
      expect(loaded.filter((file) => cacheClient.includes(file)).length).toBeGreaterThanOrEqual(jobs.length)
      expect(loaded.filter((file) => artifact.includes(file))).toEqual([])
    },
    3 * MINUTE,
  )
})
