/**
 * Figure 1: the controller's own time per iteration on a state with 1,000 iterations of history,
 * everything but the user's commands and the network. Measured two ways, both against `node -e 0`
 * started in the same run, in a real git repository (bench/git-project.ts) with the real redactor
 * holding a job's secrets:
 *   a. step by step: store.load, decide, beginIteration, a StreamingAnalyzer over a 200 KB failing log,
 *      the git work (head, snapshot, changes since, changed paths, checkpoint commit, diff stat),
 *      applyOutcome, compactState, store.save, redacting what leaves the runner, and rendering the report
 *      (summary, comment, iteration record);
 *   b. a real iteration (`runOneIteration`, wired as the CLI wires it: file store, process runner, GitCli,
 *      audit trail, `createRedactor`) whose work edits a file and whose checks are `true`, minus the wall
 *      time during which a work or check process was running; git's own processes count as the
 *      controller's, because they are its work;
 *   c. the same with one check printing the 200 KB failing log.
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AuditTrail } from '../src/adapters/audit-trail.js'
import { FileStore } from '../src/adapters/file-store.js'
import { GitCli } from '../src/adapters/git-cli.js'
import { nodeWorkspace } from '../src/adapters/node-workspace.js'
import { ChildProcessRunner } from '../src/adapters/process-runner.js'
import { runOneIteration } from '../src/app/iteration.js'
import type { LoopConfig } from '../src/config/loop-config.js'
import { buildLibrary, normaliseTokens, StreamingAnalyzer } from '../src/domain/analysis/index.js'
import { renderIterationMarkdown } from '../src/domain/audit-markdown.js'
import { applyOutcome, beginIteration, compactState, decide, type FailureInput } from '../src/domain/engine/index.js'
import { createRedactor } from '../src/domain/redact.js'
import { buildReportModel, renderComment, renderSummary } from '../src/domain/report/index.js'
import type { CheckResult, LoopState } from '../src/domain/state.js'
import type { Logger } from '../src/ports/logger.js'
import type { ProcessRunner, RunRequest, RunResult } from '../src/ports/process.js'
import { BENCH_SECRETS, createGitProject, EDIT_COMMAND, resetGitProject } from './git-project.js'
import {
  type BenchRow,
  controllerShare,
  type IterationSample,
  median,
  medianProcessMs,
  ms,
  syntheticConfig,
  syntheticState,
  times,
} from './lib.js'

const BUDGET_MS = 200
const NOISE = [
  '[2026-01-01T00:00:00.000Z] info  worker 7 processed job 123456 in 42 ms (queue depth 3)',
  '  PASS  packages/core/src/utils/string.spec.ts (12 tests) 18ms',
  'compiling module graph: 1532 modules, 12 chunks, cache hit ratio 0.93',
]

/** A realistic failing type-check log of about `size` bytes: build noise with tsc errors spread through. */
export function failingLog(size: number): string {
  const lines: string[] = []
  let length = 0
  for (let i = 0; length < size; i++) {
    const line =
      i % 40 === 39
        ? `src/app/service-${i % 7}.ts(${(i % 300) + 1},7): error TS2322: Type 'string' is not assignable to type 'number'.`
        : (NOISE[i % NOISE.length] as string)
    lines.push(line)
    length += line.length + 1
  }
  return `${lines.join('\n')}\n`
}

const quietLogger: Logger = {
  info() {},
  warning() {},
  error() {},
  debug() {},
  group: (_name, body) => body(),
}

/** A runner that records when each child process ran, to subtract the union of those intervals. */
class TimedRunner implements ProcessRunner {
  readonly intervals: [number, number][] = []
  private readonly inner = new ChildProcessRunner()
  async run(request: RunRequest): Promise<RunResult> {
    const started = performance.now()
    const result = await this.inner.run(request)
    this.intervals.push([started, started + result.durationMs])
    return result
  }
  /** Wall time (ms) during which at least one child was running. */
  busyMs(): number {
    const sorted = [...this.intervals].sort((a, b) => a[0] - b[0])
    let total = 0
    let end = Number.NEGATIVE_INFINITY
    for (const [from, to] of sorted) {
      if (to <= end) continue
      total += to - Math.max(from, end)
      end = to
    }
    return total
  }
}

interface StepTimes {
  load: number
  decide: number
  begin: number
  analyze: number
  git: number
  apply: number
  compact: number
  save: number
  redact: number
  report: number
}

/** The git work of step 1a, call by call (ms). */
interface GitTimes {
  head: number
  snapshot: number
  changesSince: number
  changedPaths: number
  checkpoint: number
  diffStat: number
}

/** A job's secrets and the redactor over them, as the action and the CLI build it. */
const redact = createRedactor(Object.values(BENCH_SECRETS))
const IDENTITY = { name: 'bench', email: 'bench@example.invalid' }

async function stepByStep(
  store: FileStore,
  loopId: string,
  config: LoopConfig,
  log: string,
  project: { dir: string; base: string },
  runs: number,
): Promise<{ steps: StepTimes; git: GitTimes }> {
  const { policy } = syntheticState(0, config)
  const library = buildLibrary()
  const git = new GitCli(project.dir)
  const samples: StepTimes[] = []
  const gitSamples: GitTimes[] = []
  for (let run = 0; run <= runs; run++) {
    resetGitProject(project.dir, project.base)
    const t: Partial<StepTimes> = {}
    let mark = performance.now()
    const lap = (step: keyof StepTimes) => {
      const now = performance.now()
      t[step] = now - mark
      mark = now
    }
    const loaded = await store.load(loopId)
    if (!loaded) throw new Error(`the benchmark state '${loopId}' is missing`)
    lap('load')
    const now = new Date(Date.parse(loaded.state.updatedAt) + 60_000)
    const decision = decide(loaded.state, { now }, policy)
    if (decision.kind !== 'EXECUTE_STAGE' && decision.kind !== 'RETRY') {
      throw new Error(`expected an iteration on the benchmark state, got ${decision.kind}: ${decision.reason}`)
    }
    lap('decide')
    const started = beginIteration(loaded.state, decision, now)
    lap('begin')
    const analyzer = new StreamingAnalyzer(library, { kind: 'typecheck' })
    const buffer = Buffer.from(log)
    for (let offset = 0; offset < buffer.length; offset += 64 * 1024)
      analyzer.push(buffer.subarray(offset, offset + 64 * 1024))
    const analysis = analyzer.finish()
    lap('analyze')
    // The git work of an iteration around its work command (the edit itself is the user's, not timed).
    const gitCall = async <T>(name: keyof GitTimes, body: () => Promise<T>): Promise<T> => {
      const callStarted = performance.now()
      const value = await body()
      gitTimes[name] = performance.now() - callStarted
      return value
    }
    const gitTimes: Partial<GitTimes> = {}
    const headBefore = await gitCall('head', () => git.head())
    const treeBeforeWork = await gitCall('snapshot', () => git.snapshot())
    const paused = performance.now()
    appendFileSync(join(project.dir, 'src', 'constants.ts'), '// edited by the benchmark\n')
    mark += performance.now() - paused
    await gitCall('changesSince', () => git.changesSince(treeBeforeWork))
    await gitCall('changedPaths', () => git.changedPaths(treeBeforeWork))
    const message = `loop(bench): iteration ${loaded.state.iteration + 1}`
    // As the iteration's checkpoint: the work tree staged once, and exactly that tree committed.
    const { commit, tree } = await gitCall('checkpoint', async () => {
      const staged = await git.stageForCommit(['.loop'])
      const made = await git.commitStaged(staged, message, IDENTITY, { leaveOut: [], parent: staged.head })
      return { commit: made, tree: staged.tree }
    })
    if (!commit) throw new Error('the benchmark edit made no checkpoint commit')
    const diffStat = await gitCall('diffStat', () => git.diffStat(headBefore, tree))
    lap('git')
    const error = analysis.excerpt || 'type error'
    const failure: FailureInput = {
      check: 'types',
      kind: 'typecheck',
      pattern: analysis.pattern,
      confidence: analysis.confidence,
      strategy: analysis.strategy,
      alternates: [],
      retryable: true,
      signature: analysis.signature ?? 'type-error:ts:0',
      tokens: normaliseTokens(error),
      error,
    }
    const checks: CheckResult[] = config.checks.map((c) => ({
      name: c.name,
      kind: c.kind,
      verdict: c.name === 'types' ? 'fail' : 'pass',
      required: true,
      durationMs: 1000,
      exitCode: c.name === 'types' ? 1 : 0,
      pattern: c.name === 'types' ? analysis.pattern : null,
      confidence: c.name === 'types' ? analysis.confidence : null,
      strategy: c.name === 'types' ? analysis.strategy : null,
      signature: c.name === 'types' ? (analysis.signature ?? null) : null,
      locations: c.name === 'types' ? analysis.locations : [],
      excerpt: c.name === 'types' ? analysis.excerpt : '',
      autoFixed: false,
    }))
    const applied = applyOutcome(
      started,
      {
        now,
        stage: started.stage,
        work: { exitCode: 0, blocked: false, durationMs: 30_000 },
        checks,
        failures: [failure],
        flaky: [],
        autoFixed: [],
        gatesRaised: [],
        tasksCompleted: [],
        wallMs: 45_000,
        ...(decision.kind === 'RETRY' ? { strategyUsed: decision.strategy } : {}),
      },
      policy,
    )
    lap('apply')
    const compacted: LoopState = compactState(applied.state)
    lap('compact')
    await store.save(loopId, compacted, loaded.version)
    lap('save')
    const next = decide(compacted, { now }, policy)
    // What leaves the runner passes through the redactor: the check's log copy, the excerpt, the events.
    redact(log)
    redact(analysis.excerpt)
    redact(JSON.stringify(applied.events))
    lap('redact')
    const model = buildReportModel(compacted, {
      checks,
      outputs: { types: log.slice(-6000) },
      next,
      nextAction: next.reason,
      outcome: 'continue',
    })
    renderSummary(model, { redact })
    renderComment(model, { redact })
    renderIterationMarkdown({
      state: compacted,
      decision,
      next,
      checks: checks.map((result) => ({ result, output: result.verdict === 'fail' ? log : '', analysis: null })),
      work: { exitCode: 0, blocked: false, durationMs: 30_000 },
      diffStat,
      commit,
    })
    lap('report')
    // Put the 1,000-iteration state back so that every run starts from the same history.
    const current = await store.load(loopId)
    await store.save(loopId, loaded.state, current?.version ?? null)
    if (run > 0) {
      samples.push(t as StepTimes)
      gitSamples.push(gitTimes as GitTimes)
    }
  }
  const pick = (step: keyof StepTimes) => median(samples.map((s) => s[step]))
  const pickGit = (call: keyof GitTimes) => median(gitSamples.map((s) => s[call]))
  const gitCalls: GitTimes = {
    head: pickGit('head'),
    snapshot: pickGit('snapshot'),
    changesSince: pickGit('changesSince'),
    changedPaths: pickGit('changedPaths'),
    checkpoint: pickGit('checkpoint'),
    diffStat: pickGit('diffStat'),
  }
  const steps: StepTimes = {
    load: pick('load'),
    decide: pick('decide'),
    begin: pick('begin'),
    analyze: pick('analyze'),
    git: pick('git'),
    apply: pick('apply'),
    compact: pick('compact'),
    save: pick('save'),
    redact: pick('redact'),
    report: pick('report'),
  }
  return { steps, git: gitCalls }
}

/**
 * `runOneIteration` wired as the CLI wires it, in the git project: state in `.loop/` (kept out of git),
 * the real GitCli and checkpoint commit, the real redactor. The project and the state are put back
 * before each run (not timed), so every run is iteration 1,000 on the same tree.
 */
async function realIteration(
  project: { dir: string; base: string },
  history: LoopState,
  config: LoopConfig,
  runs: number,
): Promise<IterationSample & { controller: number }> {
  const samples: IterationSample[] = []
  const loopDir = join(project.dir, '.loop', 'bench')
  for (let run = 0; run <= runs; run++) {
    resetGitProject(project.dir, project.base)
    const store = new FileStore({ root: join(project.dir, '.loop') })
    await store.save('bench', history, null)
    const runner = new TimedRunner()
    const started = performance.now()
    const result = await runOneIteration(
      {
        config,
        library: buildLibrary(),
        loopId: 'bench',
        cwd: project.dir,
        loopDir,
        excludeFromCommits: ['.loop'],
        commit: true,
        identity: IDENTITY,
        env: { ...process.env, ...BENCH_SECRETS },
        maxParallel: 2,
        toolVersion: 'bench',
      },
      {
        store,
        runner,
        git: new GitCli(project.dir),
        clock: { now: () => new Date(), sleep: (delay: number) => new Promise((r) => setTimeout(r, delay)) },
        logger: quietLogger,
        workspace: nodeWorkspace,
        audit: new AuditTrail(loopDir, redact),
        redact,
      },
    )
    const total = performance.now() - started
    if (result.state.iteration !== history.iteration + 1) {
      throw new Error(`the real iteration did not run: ${result.outcome}, ${result.decision.reason}`)
    }
    if (result.commit === null) throw new Error('the real iteration made no checkpoint commit')
    if (run > 0) samples.push({ total, children: runner.busyMs() })
  }
  return controllerShare(samples)
}

export async function controllerOverhead(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'loop-bench-overhead-'))
  try {
    const log = failingLog(200 * 1024)
    const logFile = join(dir, 'failing-types.log')
    writeFileSync(logFile, log)
    const projectDir = join(dir, 'project')
    const project = { dir: projectDir, base: createGitProject(projectDir) }
    const config = syntheticConfig({ work: { run: EDIT_COMMAND }, commit: { enabled: true } })
    const { state } = syntheticState(999, config)
    // The history's matrix was measured once, as a real loop's would have been.
    const history: LoopState = {
      ...state,
      baseline: { takenAt: state.startedAt, checks: { types: 'fail', lint: 'fail', unit: 'pass' }, tests: {} },
    }
    const store = new FileStore({ root: join(dir, 'steps') })
    await store.save('bench', history, null)
    const nodeStart = await medianProcessMs(9, process.execPath, ['-e', '0'])

    const { steps, git } = await stepByStep(store, 'bench', config, log, project, 15)
    const stepTotal = Object.values(steps).reduce((sum, value) => sum + value, 0)
    const breakdown = (Object.entries(steps) as [string, number][])
      .map(([step, value]) => `${step} ${value.toFixed(1)}`)
      .join(', ')

    const failingConfig = syntheticConfig({
      work: { run: EDIT_COMMAND },
      commit: { enabled: true },
      checks: [
        { name: 'types', run: `cat '${logFile}'; exit 1`, kind: 'typecheck' },
        { name: 'lint', run: 'true', kind: 'lint' },
        { name: 'unit', run: 'true', kind: 'test' },
      ],
    })
    const green = await realIteration(project, history, config, 7)
    const failing = await realIteration(project, history, failingConfig, 7)
    const row = (figure: string, value: number, note: string): BenchRow => ({
      figure,
      value: `${ms(value)}${note}`,
      baseline: `node -e 0 ${ms(nodeStart)}`,
      ratio: times(value / nodeStart),
      budget: `< ${BUDGET_MS} ms`,
      met: value < BUDGET_MS ? 'yes' : 'no',
    })
    const share = (s: { total: number; children: number }) => ` (${ms(s.total)} total − ${ms(s.children)} children)`
    return [
      row('1a. controller overhead, steps (1,000-iteration state, git, redactor)', stepTotal, ''),
      row('1b. runOneIteration in git, checks `true`, minus children', green.controller, share(green)),
      row('1c. runOneIteration in git, 200 KB failing check, minus children', failing.controller, share(failing)),
      {
        figure: '1a. steps (ms)',
        value: breakdown,
        baseline: '',
        ratio: '',
        budget: '',
        met: 'n/a',
        note: `the git step, call by call (ms): ${(Object.entries(git) as [string, number][])
          .map(([call, value]) => `${call} ${value.toFixed(1)}`)
          .join(', ')}`,
      },
    ]
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
