/**
 * Figure 2: start-up of the action bundle, to the point where a real job has loaded everything it needs
 * before its first iteration. The bundle imports the state stores lazily (`await import()`; ncc emits
 * them as chunks, most of the bundle's bytes: `@actions/cache`, `@actions/artifact` and the Azure blob
 * SDK under them), so running it with no inputs, which fails fast on the input parse, would leave that
 * cost out. The measured run gets a job's inputs and environment (a token, a loop config in the
 * workspace, a `workflow_dispatch` event, the default `auto` store) and no `GITHUB_RUN_ID`: it parses
 * its inputs, loads the config, checks the trigger, imports the store chunks, builds the cache store and
 * stops when the artifact store asks for the run id, before any network call. A probe run (not timed)
 * with a module hook proves the store chunks were loaded. Baseline: loading `@actions/core` alone
 * (`node -e "import('@actions/core')"`), samples interleaved. The fail-fast start (no inputs) is shown
 * beside it, and the bundle's size, attributed per package by decoding its source maps' segments.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
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

/** The bundle's chunks whose sources include the state stores (`src/adapters/stores/`). */
export function storeChunks(dir: string): string[] {
  return readdirSync(dir).filter((name) => {
    if (!/^\d+\.index\.js$/.test(name) || !existsSync(join(dir, `${name}.map`))) return false
    const map = JSON.parse(readFileSync(join(dir, `${name}.map`), 'utf8')) as { sources: string[] }
    return map.sources.some((source) => source.includes('src/adapters/stores/'))
  })
}

/** A job's workspace, event and environment, enough for the bundle to reach its store (see the header). */
function jobEnvironment(dir: string): NodeJS.ProcessEnv {
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
    GITHUB_EVENT_NAME: 'workflow_dispatch',
    GITHUB_EVENT_PATH: join(dir, 'event.json'),
    GITHUB_OUTPUT: join(dir, 'output.txt'),
    'INPUT_GITHUB-TOKEN': 'ghs_benchmarkBENCHMARKbenchmark0123456789',
    'INPUT_LOOP-ID': 'bench',
    INPUT_CONFIG: '.github/loop.yml',
    INPUT_STORE: 'auto',
  }
}

/** Runs the bundle once with a module hook that names every chunk it loads (not timed). */
function chunksLoaded(bundle: string, env: NodeJS.ProcessEnv, dir: string): { chunks: string[]; output: string } {
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
  const probe = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, bundle], {
    env,
    encoding: 'utf8',
    cwd: dir,
  })
  const output = `${probe.stdout}${probe.stderr}`
  const chunks = [...output.matchAll(/^chunk-loaded (\S+)$/gm)].map((m) => basename(m[1] as string))
  const lines = output
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('chunk-loaded') && !line.includes('::add-mask::'))
  return { chunks, output: lines.at(-1) ?? '(no output)' }
}

export async function bundleStartup(): Promise<BenchRow[]> {
  const { dir, built } = bundleFolder()
  const bundle = join(dir, 'index.js')
  const jobDir = mkdtempSync(join(tmpdir(), 'loop-bench-startup-'))
  try {
    const jobEnv = jobEnvironment(jobDir)
    const needed = storeChunks(dir)
    const probe = chunksLoaded(bundle, jobEnv, jobDir)
    const missing = needed.filter((chunk) => !probe.chunks.includes(chunk))
    if (needed.length === 0 || missing.length > 0) {
      throw new Error(
        `the measured run did not load the store chunks (${missing.join(', ') || 'none found in the bundle'}); it ended with: ${probe.output}`,
      )
    }
    // No inputs at all: the action parses its inputs first and fails fast on the missing token.
    const bareEnv = { PATH: process.env.PATH ?? '', RUNNER_TEMP: join(jobDir, 'runner-temp') }
    const bare = spawnSync(process.execPath, [bundle], { env: bareEnv, encoding: 'utf8', cwd: jobDir })
    const bareLine = `${bare.stdout}${bare.stderr}`.split('\n').find((line) => line.trim()) ?? '(no output)'
    // Interleaved samples, so that all three see the same load from whatever else runs on the machine.
    const jobSamples: number[] = []
    const bareSamples: number[] = []
    const coreSamples: number[] = []
    const coreArgs = ['-e', "import('@actions/core')"]
    const options = { env: jobEnv, cwd: jobDir }
    await timeProcess(process.execPath, [bundle], options)
    await timeProcess(process.execPath, coreArgs, { env: bareEnv, cwd: ROOT })
    for (let i = 0; i < 11; i++) {
      jobSamples.push((await timeProcess(process.execPath, [bundle], options)).ms)
      bareSamples.push((await timeProcess(process.execPath, [bundle], { env: bareEnv, cwd: jobDir })).ms)
      coreSamples.push((await timeProcess(process.execPath, coreArgs, { env: bareEnv, cwd: ROOT })).ms)
    }
    const jobMs = median(jobSamples)
    const bareMs = median(bareSamples)
    const coreMs = median(coreSamples)
    const { total, packages } = bundleComposition(dir)
    const top = packages
      .slice(0, 6)
      .map(([name, size]) => `${name} ${bytes(size)}`)
      .join(', ')
    const loadedBytes = ['index.js', ...probe.chunks].reduce((sum, name) => sum + statSync(join(dir, name)).size, 0)
    const ratio = jobMs / coreMs
    const source = built ? 'fresh ncc build' : 'dist/index.js'
    return [
      {
        figure: `2. bundle start to its store, as a job (${source})`,
        value: ms(jobMs),
        baseline: `import('@actions/core') ${ms(coreMs)}`,
        ratio: times(ratio),
        budget: `<= ${BUDGET_RATIO}x @actions/core`,
        met: ratio <= BUDGET_RATIO ? 'yes' : 'no',
        note: `loaded index.js and the chunks ${probe.chunks.join(', ')} (${bytes(loadedBytes)}); last line: ${probe.output.slice(0, 120)}`,
      },
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
    rmSync(jobDir, { recursive: true, force: true })
  }
}
