/**
 * Figure 2: start-up of the action bundle, to the point where a real job has loaded everything it needs
 * before its first iteration: its first access to its state store. The bundle imports the cache and
 * artifact stores lazily (`await import()`, each only for the store that uses it; ncc emits them as
 * chunks, most of the bundle's bytes: `@actions/cache`, `@actions/artifact` and the Azure blob SDKs under
 * them), so running it with no inputs, which fails fast on the input parse, would leave that cost out.
 * Each measured run gets a job's inputs and environment (a token, a loop config in the workspace, a
 * `workflow_dispatch` event, a run id, one `store`) and is timed to its `state-path` line: its store is
 * built and its first access is next. The run then ends at that access, before any network call: the
 * `git` store (the default) finds no remote in the workspace; the cache, asked through its v2 service,
 * finds no runtime token; the REST API is a local stand-in that refuses every request (401, which
 * nothing retries), so the artifact store's first listing fails at once. A probe run of each
 * (not timed) with a module hook names the chunks it loaded and proves it built its store (the
 * `state-path` line) and loaded its store's module. Baseline: loading `@actions/core` alone
 * (`node -e "import('@actions/core')"`), samples interleaved. The fail-fast start (no inputs) is shown
 * beside it, and the bundle's size, attributed per package by decoding its source maps' segments.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { type BenchRow, bytes, median, ms, timeProcess, times } from './lib.js'

const ROOT = resolve(import.meta.dirname, '..')
/** The action bundle may not load slower than this multiple of loading `@actions/core` alone. */
const BUDGET_RATIO = 3

function newestSourceMs(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestSourceMs(path) : statSync(path).mtimeMs)
  }
  return newest
}

/**
 * The bundle to measure: `dist/index.js` when it is newer than every file under src/, otherwise a fresh
 * build of src/index.ts into a temporary folder (kept between runs, rebuilt each run). Returns the folder.
 */
let cachedBundle: { dir: string; built: boolean } | undefined

export function bundleFolder(): { dir: string; built: boolean } {
  cachedBundle ??= findOrBuildBundle()
  return cachedBundle
}

function findOrBuildBundle(): { dir: string; built: boolean } {
  const dist = join(ROOT, 'dist')
  const distIndex = join(dist, 'index.js')
  if (existsSync(distIndex) && existsSync(`${distIndex}.map`)) {
    if (statSync(distIndex).mtimeMs > newestSourceMs(join(ROOT, 'src'))) return { dir: dist, built: false }
  }
  const out = join(tmpdir(), 'loop-bench-bundle')
  rmSync(out, { recursive: true, force: true })
  // Type-checked build (no -t): ncc's transpile-only mode resolves the ESM-only @actions/* packages with
  // `require` conditions and fails.
  const build = spawnSync('npx', ['ncc', 'build', 'src/index.ts', '-o', out, '--source-map', '-q'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
  if (build.status !== 0) throw new Error(`ncc build of src/index.ts failed:\n${build.stderr.slice(-3000)}`)
  return { dir: out, built: true }
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'

/** Bytes of generated code per source file, from a source map's `mappings` (VLQ segments). */
export function bytesPerSource(generated: string, map: { sources: string[]; mappings: string }): Map<string, number> {
  const totals = new Map<string, number>()
  const lines = generated.split('\n')
  const mappingLines = map.mappings.split(';')
  let sourceIndex = 0
  const add = (source: string, count: number) => totals.set(source, (totals.get(source) ?? 0) + count)
  for (let lineNumber = 0; lineNumber < lines.length; lineNumber++) {
    const lineLength = (lines[lineNumber] as string).length + 1
    const segments = (mappingLines[lineNumber] ?? '').split(',').filter(Boolean)
    let column = 0
    let lastColumn = 0
    let lastSource: string | null = null
    for (const segment of segments) {
      const fields: number[] = []
      let value = 0
      let shift = 0
      for (const char of segment) {
        const digit = BASE64.indexOf(char)
        value += (digit & 31) << shift
        if (digit & 32) shift += 5
        else {
          fields.push(value & 1 ? -(value >>> 1) : value >>> 1)
          value = 0
          shift = 0
        }
      }
      column += fields[0] ?? 0
      add(lastSource ?? '(webpack runtime)', column - lastColumn)
      lastColumn = column
      if (fields.length >= 4) {
        sourceIndex += fields[1] ?? 0
        lastSource = map.sources[sourceIndex] ?? '(unknown)'
      } else lastSource = null
    }
    add(lastSource ?? '(webpack runtime)', lineLength - lastColumn)
  }
  return totals
}

/** `node_modules/@scope/name/...` -> `@scope/name`; the project's own files -> `loop-controller (src)`. */
export function packageOf(source: string): string {
  const parts = source.split('node_modules/')
  if (parts.length < 2) return source.includes('/src/') ? 'loop-controller (src)' : source
  const rest = (parts[parts.length - 1] as string).split('/')
  return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] as string)
}

/** Bytes per package over every .js file of the bundle folder that has a source map. */
export function bundleComposition(dir: string): { total: number; packages: [string, number][] } {
  const perPackage = new Map<string, number>()
  let total = 0
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.js')) continue
    const code = readFileSync(join(dir, name), 'utf8')
    total += Buffer.byteLength(code)
    const mapPath = join(dir, `${name}.map`)
    if (!existsSync(mapPath)) {
      perPackage.set('(no source map)', (perPackage.get('(no source map)') ?? 0) + code.length)
      continue
    }
    const map = JSON.parse(readFileSync(mapPath, 'utf8')) as { sources: string[]; mappings: string }
    for (const [source, count] of bytesPerSource(code, map)) {
      const pkg = packageOf(source)
      perPackage.set(pkg, (perPackage.get(pkg) ?? 0) + count)
    }
  }
  return { total, packages: [...perPackage].sort((a, b) => b[1] - a[1]) }
}

/** The bundle's chunks whose sources include `sourcePath` (e.g. `src/adapters/stores/cache-store.ts`). */
export function chunksHolding(dir: string, sourcePath: string): string[] {
  return readdirSync(dir).filter((name) => {
    if (!/^\d+\.index\.js$/.test(name) || !existsSync(join(dir, `${name}.map`))) return false
    const map = JSON.parse(readFileSync(join(dir, `${name}.map`), 'utf8')) as { sources: string[] }
    return map.sources.some((source) => source.includes(sourcePath))
  })
}

/** The stores a job can name, the default first, with the store modules each must have loaded. */
const STORES = [
  { store: 'git', modules: [] },
  { store: 'cache', modules: ['cache-store.ts'] },
  { store: 'artifact', modules: ['artifact-store.ts'] },
  { store: 'auto', modules: ['auto-store.ts', 'cache-store.ts', 'artifact-store.ts'] },
] as const

/** A REST API that refuses every request at once (401 is not retried), counting them. */
async function refusingApi(): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let count = 0
  const server: Server = createServer((request, response) => {
    count++
    request.resume()
    response.writeHead(401, { 'content-type': 'application/json' })
    response.end('{"message":"Bad credentials"}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('the stand-in API has no port')
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests: () => count,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

/** A job's workspace, event and environment, enough for the bundle to reach its store (see the header). */
function jobEnvironment(dir: string, store: string, apiUrl: string): NodeJS.ProcessEnv {
  const workspace = join(dir, 'workspace')
  mkdirSync(join(workspace, '.github'), { recursive: true })
  writeFileSync(
    join(workspace, '.github', 'loop.yml'),
    'goal: start-up benchmark\nwork:\n  run: "true"\nchecks:\n  - name: unit\n    run: "true"\n    kind: test\n',
  )
  writeFileSync(join(dir, 'event.json'), '{}')
  writeFileSync(join(dir, 'output.txt'), '')
  mkdirSync(join(dir, 'runner-temp'), { recursive: true })
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dir,
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: workspace,
    RUNNER_TEMP: join(dir, 'runner-temp'),
    GITHUB_REPOSITORY: 'bench/project',
    GITHUB_RUN_ID: '1',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_API_URL: apiUrl,
    ACTIONS_CACHE_SERVICE_V2: 'true',
    GITHUB_EVENT_NAME: 'workflow_dispatch',
    GITHUB_EVENT_PATH: join(dir, 'event.json'),
    GITHUB_OUTPUT: join(dir, 'output.txt'),
    'INPUT_GITHUB-TOKEN': 'ghs_benchmarkBENCHMARKbenchmark0123456789',
    'INPUT_LOOP-ID': 'bench',
    INPUT_CONFIG: '.github/loop.yml',
    INPUT_STORE: store,
  }
}

/** Runs the bundle once with a module hook that names every chunk it loads (not timed). */
async function chunksLoaded(
  bundle: string,
  env: NodeJS.ProcessEnv,
  dir: string,
): Promise<{ chunks: string[]; builtStore: boolean; output: string }> {
  const hooks = join(dir, 'hooks.mjs')
  writeFileSync(
    hooks,
    [
      "import { writeSync } from 'node:fs'",
      'export async function load(url, context, next) {',
      "  if (/\\/\\d+\\.index\\.js$/.test(url)) writeSync(2, 'chunk-loaded ' + url + '\\n')",
      '  return next(url, context)',
      '}',
      '',
    ].join('\n'),
  )
  const register = join(dir, 'register.mjs')
  writeFileSync(
    register,
    `import { register } from 'node:module'\nregister(${JSON.stringify(pathToFileURL(hooks).href)})\n`,
  )
  // Not spawnSync: the stand-in API answers from this process while the probe runs.
  const probe = await timeProcess(process.execPath, ['--import', pathToFileURL(register).href, bundle], {
    env,
    cwd: dir,
  })
  const output = `${probe.stdout}${probe.stderr}`
  const chunks = [...output.matchAll(/^chunk-loaded (\S+)$/gm)].map((m) => basename(m[1] as string))
  const lines = probe.stdout.split('\n').filter((line) => line.trim() && !line.includes('::add-mask::'))
  return { chunks, builtStore: STORE_BUILT.test(probe.stdout), output: lines.at(-1) ?? '(no output)' }
}

/** The `state-path` output line: the job has built its store and goes on to its first access. */
const STORE_BUILT = /^state-path = /m

/**
 * Milliseconds from starting the bundle as a job to its `state-path` line (stdout to a pipe is
 * synchronous in Node on Linux, so the line arrives as it is written); the run then ends on its own,
 * at the store's first access, and is waited for.
 */
function timeToStore(bundle: string, env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [bundle], { cwd, env, stdio: ['ignore', 'pipe', 'ignore'] })
    let stdout = ''
    let builtAt: number | undefined
    child.stdout.on('data', (chunk: Buffer) => {
      if (builtAt !== undefined) return
      stdout += chunk.toString()
      if (STORE_BUILT.test(stdout)) builtAt = performance.now() - started
    })
    child.on('error', reject)
    child.on('close', () => {
      if (builtAt === undefined) reject(new Error(`the job never built its store; its output: ${stdout.slice(-500)}`))
      else resolve(builtAt)
    })
  })
}

interface StoreRun {
  store: string
  env: NodeJS.ProcessEnv
  chunks: string[]
  output: string
  samples: number[]
}

export async function bundleStartup(): Promise<BenchRow[]> {
  const { dir, built } = bundleFolder()
  const bundle = join(dir, 'index.js')
  const jobDir = mkdtempSync(join(tmpdir(), 'loop-bench-startup-'))
  const api = await refusingApi()
  try {
    const runs: StoreRun[] = []
    for (const { store, modules } of STORES) {
      const storeDir = join(jobDir, store)
      mkdirSync(storeDir)
      const env = jobEnvironment(storeDir, store, api.url)
      const probe = await chunksLoaded(bundle, env, storeDir)
      const needed = modules.map((module) => ({ module, chunks: chunksHolding(dir, `src/adapters/stores/${module}`) }))
      const missing = needed.filter(
        ({ chunks }) => chunks.length === 0 || !chunks.some((c) => probe.chunks.includes(c)),
      )
      if (!probe.builtStore || missing.length > 0) {
        const why = probe.builtStore
          ? `did not load ${missing.map(({ module }) => module).join(', ')}`
          : 'did not build its store (no state-path line)'
        throw new Error(`the measured run of store ${store} ${why}; it ended with: ${probe.output}`)
      }
      runs.push({ store, env, chunks: probe.chunks, output: probe.output, samples: [] })
    }
    const probeRequests = api.requests()
    // No inputs at all: the action parses its inputs first and fails fast on the missing token.
    const bareEnv = { PATH: process.env.PATH ?? '', RUNNER_TEMP: join(jobDir, 'runner-temp') }
    mkdirSync(bareEnv.RUNNER_TEMP)
    const bare = spawnSync(process.execPath, [bundle], { env: bareEnv, encoding: 'utf8', cwd: jobDir })
    const bareLine = `${bare.stdout}${bare.stderr}`.split('\n').find((line) => line.trim()) ?? '(no output)'
    // Interleaved samples, so that all see the same load from whatever else runs on the machine.
    const bareSamples: number[] = []
    const coreSamples: number[] = []
    const coreArgs = ['-e', "import('@actions/core')"]
    for (const run of runs) await timeToStore(bundle, run.env, jobDir)
    await timeProcess(process.execPath, coreArgs, { env: bareEnv, cwd: ROOT })
    for (let i = 0; i < 11; i++) {
      for (const run of runs) {
        run.samples.push(await timeToStore(bundle, run.env, jobDir))
      }
      bareSamples.push((await timeProcess(process.execPath, [bundle], { env: bareEnv, cwd: jobDir })).ms)
      coreSamples.push((await timeProcess(process.execPath, coreArgs, { env: bareEnv, cwd: ROOT })).ms)
    }
    const bareMs = median(bareSamples)
    const coreMs = median(coreSamples)
    const { total, packages } = bundleComposition(dir)
    const top = packages
      .slice(0, 6)
      .map(([name, size]) => `${name} ${bytes(size)}`)
      .join(', ')
    const source = built ? 'fresh ncc build' : 'dist/index.js'
    const storeRows = runs.map((run): BenchRow => {
      const jobMs = median(run.samples)
      const ratio = jobMs / coreMs
      const loadedBytes = ['index.js', ...run.chunks].reduce((sum, name) => sum + statSync(join(dir, name)).size, 0)
      const chunks = run.chunks.length > 0 ? `the chunks ${run.chunks.join(', ')}` : 'no chunk'
      return {
        figure: `2. bundle start to its store, as a job, store: ${run.store}${run.store === 'git' ? ' (the default)' : ''} (${source})`,
        value: ms(jobMs),
        baseline: `import('@actions/core') ${ms(coreMs)}`,
        ratio: times(ratio),
        budget: `<= ${BUDGET_RATIO}x @actions/core`,
        met: ratio <= BUDGET_RATIO ? 'yes' : 'no',
        note: `loaded index.js and ${chunks} (${bytes(loadedBytes)}); last line: ${run.output.slice(0, 120)}`,
      }
    })
    const first = storeRows[0]
    if (first?.note) first.note += `; the probes made ${probeRequests} request(s) to the stand-in API, all refused`
    return [
      ...storeRows,
      {
        figure: `2. bundle start, no inputs (fails fast, no store)`,
        value: ms(bareMs),
        baseline: `import('@actions/core') ${ms(coreMs)}`,
        ratio: times(bareMs / coreMs),
        budget: '',
        met: 'n/a',
        note: `first line: ${bareLine.slice(0, 120)}`,
      },
      {
        figure: '2. bundle size (all chunks)',
        value: bytes(total),
        baseline: '',
        ratio: '',
        budget: '',
        met: 'n/a',
        note: `largest parts: ${top}`,
      },
    ]
  } finally {
    await api.close()
    rmSync(jobDir, { recursive: true, force: true })
  }
}
