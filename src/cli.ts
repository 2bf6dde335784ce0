/**
 * Composition root for the `loop-controller` CLI (alias `loop`): the embedded default front door.
 * State lives in `.loop/` at the repository root, kept out of commits.
 */
import { existsSync } from 'node:fs'
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { AuditTrail } from './adapters/audit-trail.js'
import { FileStore } from './adapters/file-store.js'
import { GitCli } from './adapters/git-cli.js'
import { nodeWorkspace } from './adapters/node-workspace.js'
import { ChildProcessRunner } from './adapters/process-runner.js'
import { runAnalyzeCommand } from './app/analyze-command.js'
import { type IterationResult, type ProgressSink, runOneIteration } from './app/iteration.js'
import { applyPeopleCommand, NoLoopError, type PeopleCommand } from './app/people-commands.js'
import { ConfigError, messageOf } from './config/errors.js'
import { parseLoopConfig, simpleModeConfig } from './config/load-config.js'
import type { LoopConfig } from './config/loop-config.js'
import { loadUserPatterns } from './config/user-patterns.js'
import { aggregateMetrics, buildLibrary, PatternError } from './domain/analysis/index.js'
import { decide, EngineError, summarizeNextAction } from './domain/engine/index.js'
import { type Policy, PolicyError, policyFromConfig } from './domain/policy.js'
import { createRedactor } from './domain/redact.js'
import { secretValuesInEnv } from './domain/secret-names.js'
import type { CheckResult, LoopState } from './domain/state.js'
import { systemClock } from './ports/clock.js'
import type { Logger } from './ports/logger.js'
import { StateFromTheFutureError, StateQuarantinedError, StoreConflictError } from './ports/store.js'
import { VERSION } from './version.js'

/** Exit codes (README, "CLI"). */
export const EXIT = {
  complete: 0,
  internal: 1,
  usage: 2,
  blocked: 3,
  waiting: 4,
  capped: 5,
  aborted: 6,
} as const

export interface CliIo {
  stdout: (text: string) => void
  stderr: (text: string) => void
  stdin: NodeJS.ReadableStream
  isTTY: boolean
  cwd: string
  env: NodeJS.ProcessEnv
}

class UsageError extends Error {
  override name = 'UsageError'
}

const COMMANDS = ['init', 'next', 'run', 'status', 'history', 'resume', 'skip', 'approve', 'abort', 'analyze'] as const
type CommandName = (typeof COMMANDS)[number]

const HELP: Record<CommandName | 'main', string> = {
  main: `loop-controller ${VERSION}: run a coding agent in a closed, machine-checked loop.

Usage: loop-controller <command> [options]     (alias: loop)

Commands:
  init      write a starter .github/loop.yml and keep .loop/ out of git
  run       run iterations until COMPLETE, BLOCKED, a gate, or a cap (starts a loop if none)
  next      run exactly one iteration
  status    show where the loop is
  history   list the iterations and what happened in each
  resume    continue a BLOCKED or waiting loop after a person stepped in
  skip      skip a required stage task:  skip TASK --reason "why"
  approve   approve a gate:              approve GATE
  abort     stop the loop for good
  analyze   classify one check's output: analyze [FILE|-] [--kind KIND] [--json]

Common options:
  --config FILE        the loop config (default: .github/loop.yml at the repository root)
  --work CMD           simple mode, no config file: the work command
  --verify CMD         simple mode: a verify command (repeat for several)
  --max-iterations N   the hard iteration cap (default 10; above 25 needs --cap-reason)
  --cap-reason TEXT    why the cap is above 25 (recorded)
  --loop-id ID         which loop (default: from the current branch)
  --state-dir DIR      where state lives (default: .loop at the repository root)
  --no-commit          do not commit each iteration's changes as a checkpoint
  -h, --help           help for a command

Exit codes: 0 COMPLETE (for next: the iteration ran), 1 internal error, 2 usage or configuration error,
3 BLOCKED, 4 waiting for approval, 5 a cap or budget reached, 6 aborted.`,
  init: `loop-controller init [--work CMD] [--verify CMD]... [--force]

Writes a starter .github/loop.yml (from --work/--verify when given) and adds .loop/ to .git/info/exclude.`,
  run: `loop-controller run [--config FILE | --work CMD --verify CMD...] [--max-iterations N] [--no-commit]

Runs iterations until the loop is COMPLETE, BLOCKED, waits at a gate, or reaches a cap. Starts a loop when
none exists. Prints a live progress line per check on a terminal, plain lines otherwise.`,
  next: `loop-controller next [--config FILE | --work CMD --verify CMD...] [--no-commit]

Runs exactly one iteration: decide, work, verify, analyze, persist.`,
  status: `loop-controller status [--loop-id ID] [--json]

Shows the stage, status, iteration, budget, failures, gates and the next action.`,
  history: `loop-controller history [--loop-id ID] [--json]

Lists each iteration: decision, checks, verdicts, patterns and strategies.`,
  resume: `loop-controller resume [--loop-id ID]

Clears BLOCKED (or a wait) after a person stepped in; the total failure count is kept.`,
  skip: `loop-controller skip TASK --reason "why" [--loop-id ID]

Marks a required stage task as skipped, with the reason recorded.`,
  approve: `loop-controller approve GATE [--loop-id ID]

Approves a pending gate (architecture, security, database, external, deploy, verifier, or your own).`,
  abort: `loop-controller abort [--loop-id ID]

Stops the loop for good; its state and audit trail are kept.`,
  analyze: `loop-controller analyze [FILE|-] [--kind KIND] [--patterns FILE] [--json]

Reads one check's output and prints the pattern, confidence, strategy, locations and signature.`,
}

const OPTIONS = {
  config: { type: 'string' },
  work: { type: 'string' },
  verify: { type: 'string', multiple: true },
  'max-iterations': { type: 'string' },
  'cap-reason': { type: 'string' },
  'loop-id': { type: 'string' },
  'state-dir': { type: 'string' },
  'no-commit': { type: 'boolean' },
  reason: { type: 'string' },
  json: { type: 'boolean' },
  force: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  kind: { type: 'string' },
  patterns: { type: 'string' },
  version: { type: 'boolean' },
} as const

/** Runs the CLI and returns its exit code. Never throws. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [first, ...rest] = argv
  if (!first || first === '--help' || first === '-h' || first === 'help') {
    io.stdout(`${HELP.main}\n`)
    return first ? EXIT.complete : EXIT.usage
  }
  if (first === '--version') {
    io.stdout(`${VERSION}\n`)
    return EXIT.complete
  }
  if (!(COMMANDS as readonly string[]).includes(first)) {
    io.stderr(`Unknown command '${first}'; expected one of ${COMMANDS.join(', ')}. Try 'loop-controller --help'.\n`)
    return EXIT.usage
  }
  const command = first as CommandName
  if (command === 'analyze') {
    if (rest.includes('--help') || rest.includes('-h')) {
      io.stdout(`${HELP.analyze}\n`)
      return EXIT.complete
    }
    return runAnalyzeCommand(rest, { stdin: io.stdin, stdout: io.stdout, stderr: io.stderr, cwd: io.cwd })
  }
  try {
    const { values, positionals } = parseArgs({ args: rest, options: OPTIONS, allowPositionals: true, strict: true })
    if (values.help) {
      io.stdout(`${HELP[command]}\n`)
      return EXIT.complete
    }
    return await dispatch(command, values, positionals, io)
  } catch (error) {
    return reportError(error, io)
  }
}

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>['values']

async function dispatch(command: CommandName, values: Values, positionals: string[], io: CliIo): Promise<number> {
  const root = await repositoryRoot(io.cwd)
  const stateDir = resolve(root, values['state-dir'] ?? '.loop')
  const loopId = values['loop-id'] ? validLoopId(values['loop-id']) : await defaultLoopId(root)
  const redact = createRedactor(secretValuesInEnv(io.env))
  const store = new FileStore({ root: stateDir })
  const audit = new AuditTrail(join(stateDir, loopId), redact)
  const expectPositionals = (count: number, what: string) => {
    if (positionals.length !== count) {
      throw new UsageError(
        `'${command}' takes ${what}; got ${positionals.length ? positionals.map((p) => `'${p}'`).join(' ') : 'nothing'}.`,
      )
    }
  }

  switch (command) {
    case 'init':
      expectPositionals(0, 'no arguments')
      return init(root, values, io)
    case 'status':
    case 'history': {
      expectPositionals(0, 'no arguments')
      const loaded = await store.load(loopId)
      if (!loaded) {
        io.stdout(
          `No loop '${loopId}' yet in ${relative(io.cwd, stateDir) || '.'}. Start one with 'loop-controller run'.\n`,
        )
        return EXIT.complete
      }
      if (command === 'status') {
        io.stdout(
          values.json
            ? `${JSON.stringify(statusJson(loaded.state), null, 2)}\n`
            : renderStatus(loaded.state, await policyIfConfigured(root, values, io)),
        )
      } else {
        const events = await audit.readEvents()
        io.stdout(values.json ? `${JSON.stringify(events, null, 2)}\n` : renderHistory(loaded.state, events))
      }
      return exitFor(loaded.state.status)
    }
    case 'resume':
    case 'abort':
    case 'approve':
    case 'skip': {
      let people: PeopleCommand
      if (command === 'approve') {
        expectPositionals(1, 'one gate name, e.g. approve security')
        people = { kind: 'approve', gate: positionals[0] as string }
      } else if (command === 'skip') {
        expectPositionals(1, 'one task name and --reason "why"')
        if (!values.reason?.trim())
          throw new UsageError(`'skip ${positionals[0]}' needs --reason "why it is skipped"; the reason is recorded.`)
        people = { kind: 'skip', task: positionals[0] as string, reason: values.reason.trim() }
      } else {
        expectPositionals(0, 'no arguments')
        people = { kind: command }
      }
      const by = io.env.USER ?? io.env.USERNAME ?? 'cli'
      const state = await applyPeopleCommand(people, { loopId, by }, { store, clock: systemClock, audit })
      io.stdout(renderStatus(state, await policyIfConfigured(root, values, io)))
      return EXIT.complete
    }
    case 'next':
    case 'run': {
      expectPositionals(0, 'no arguments (use --work and --verify for simple mode)')
      const { config, configPath } = await loadConfig(root, values, io)
      const library = buildLibrary(await loadUserPatterns(config.patterns, root))
      // Validate the policy up front so a bad cap is a configuration error before anything runs.
      policyFromConfig(config)
      await keepStateOutOfGit(root, stateDir)
      const git = (await isGitRepository(root)) ? new GitCli(root) : null
      const excluded = relative(root, stateDir)
      const progress = io.isTTY ? ttyProgress(io) : plainProgress(io)
      const logger = cliLogger(io)
      const started = Date.now()
      let last: IterationResult | null = null
      const header = await store.load(loopId)
      io.stdout(
        `loop ${loopId} · ${typeof config.pipeline === 'string' ? config.pipeline : config.pipeline.join(' -> ')} · cap ${config['max-iterations']}${header ? ` · resuming at iteration ${header.state.iteration}` : ''}\n`,
      )
      for (;;) {
        last = await runOneIteration(
          {
            config,
            library,
            loopId,
            cwd: root,
            loopDir: join(stateDir, loopId),
            excludeFromCommits: excluded.startsWith('..') ? [] : [excluded],
            commit: !values['no-commit'] && config.commit.enabled,
            identity: { name: 'loop-controller', email: 'loop-controller@users.noreply.github.com' },
            env: io.env,
            maxParallel: availableParallelism(),
            toolVersion: VERSION,
            ...(configPath ? { configPathRelative: relative(root, configPath) } : {}),
          },
          {
            store,
            runner: new ChildProcessRunner(),
            git,
            clock: systemClock,
            logger,
            workspace: nodeWorkspace,
            audit,
            redact,
            progress,
          },
        )
        if (last.outcome !== 'continue' || command === 'next') break
      }
      io.stdout(`${closingLine(last, Date.now() - started, relative(io.cwd, join(stateDir, loopId)) || '.')}\n`)
      if (command === 'next' && last.outcome === 'continue') return EXIT.complete
      return exitFor(last.outcome)
    }
    case 'analyze':
      // Handled before option parsing: it has options of its own.
      return EXIT.usage
  }
}

async function loadConfig(
  root: string,
  values: Values,
  io: CliIo,
): Promise<{ config: LoopConfig; configPath: string | null }> {
  const maxIterations = values['max-iterations'] !== undefined ? parseCap(values['max-iterations']) : undefined
  if (values.work !== undefined || values.verify !== undefined) {
    if (values.config) throw new UsageError('Use either --config or --work/--verify (simple mode), not both.')
    if (!values.work?.trim()) throw new UsageError('Simple mode needs --work CMD (the work command); got nothing.')
    if (!values.verify?.length) throw new UsageError('Simple mode needs at least one --verify CMD; got none.')
    return {
      config: simpleModeConfig({
        work: values.work,
        verify: values.verify,
        ...(maxIterations !== undefined ? { maxIterations } : {}),
        ...(values['cap-reason'] ? { capReason: values['cap-reason'] } : {}),
      }),
      configPath: null,
    }
  }
  const configPath = resolve(io.cwd, values.config ?? join(root, '.github', 'loop.yml'))
  if (!existsSync(configPath)) {
    throw new ConfigError(
      `No loop config at ${relative(io.cwd, configPath) || configPath}. Write one with 'loop-controller init', name another with --config FILE, or use simple mode: --work CMD --verify CMD.`,
    )
  }
  const text = await readFile(configPath, 'utf8')
  let config = parseLoopConfig(text, relative(io.cwd, configPath) || configPath)
  if (maxIterations !== undefined || values['cap-reason']) {
    config = {
      ...config,
      ...(maxIterations !== undefined ? { 'max-iterations': maxIterations } : {}),
      ...(values['cap-reason'] ? { 'cap-reason': values['cap-reason'] } : {}),
    }
    if (config['max-iterations'] > 25 && !config['cap-reason']) {
      throw new UsageError(`--max-iterations ${config['max-iterations']} is above 25, which needs --cap-reason "why".`)
    }
  }
  return { config, configPath }
}

/** The loop's policy when its config (file or simple-mode flags) is at hand and valid; else null. */
async function policyIfConfigured(root: string, values: Values, io: CliIo): Promise<Policy | null> {
  try {
    return policyFromConfig((await loadConfig(root, values, io)).config)
  } catch {
    return null
  }
}

function parseCap(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1 || Number(value) > 1000) {
    throw new UsageError(`--max-iterations must be a whole number from 1 to 1000; got '${value}'.`)
  }
  return Number(value)
}

function validLoopId(value: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(value)) {
    throw new UsageError(
      `--loop-id must be 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or digit; got '${value}'.`,
    )
  }
  return value
}

async function defaultLoopId(root: string): Promise<string> {
  const git = new GitCli(root)
  const branch = (await isGitRepository(root)) ? await git.currentBranch() : null
  const id = (branch ?? 'default')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 100)
  return id || 'default'
}

async function repositoryRoot(cwd: string): Promise<string> {
  const git = new GitCli(cwd)
  const result = await git.exec(['rev-parse', '--show-toplevel'], { allowFailure: true })
  return result.exitCode === 0 ? result.stdout.trim() : cwd
}

async function isGitRepository(root: string): Promise<boolean> {
  return new GitCli(root).isRepository()
}

/** `.loop/` never reaches a commit: it is added to `.git/info/exclude` (local, not a tracked file). */
async function keepStateOutOfGit(root: string, stateDir: string): Promise<void> {
  const rel = relative(root, stateDir)
  if (rel.startsWith('..') || !existsSync(join(root, '.git'))) return
  const exclude = join(root, '.git', 'info', 'exclude')
  const current = existsSync(exclude) ? await readFile(exclude, 'utf8') : ''
  const line = `/${rel.replace(/\\/g, '/')}/`
  if (current.split('\n').includes(line)) return
  await mkdir(join(root, '.git', 'info'), { recursive: true })
  await appendFile(exclude, `${current && !current.endsWith('\n') ? '\n' : ''}# loop-controller state\n${line}\n`)
}

async function init(root: string, values: Values, io: CliIo): Promise<number> {
  const target = join(root, '.github', 'loop.yml')
  if (existsSync(target) && !values.force) {
    io.stderr(`${relative(io.cwd, target)} already exists; use --force to overwrite it.\n`)
    return EXIT.usage
  }
  const work = values.work ?? 'claude -p "$(cat "$LOOP_PROMPT_FILE")"'
  const verify = values.verify?.length ? values.verify : ['npm test']
  const checks = verify
    .map(
      (run, i) =>
        `  - name: check-${i + 1}\n    run: ${JSON.stringify(run)}\n    kind: ${simpleModeConfig({ work, verify: [run] }).checks[0]?.kind ?? 'custom'}`,
    )
    .join('\n')
  const text = `# yaml-language-server: $schema=https://raw.githubusercontent.com/loop-controller/loop-controller/v1/schema/loop-config.schema.json
goal: Make every check below pass.
pipeline: iterate
max-iterations: 10
work:
  run: ${JSON.stringify(work)}
  timeout: 30m
checks:
${checks}
`
  parseLoopConfig(text, '.github/loop.yml')
  await mkdir(join(root, '.github'), { recursive: true })
  await writeFile(target, text)
  await keepStateOutOfGit(root, join(root, '.loop'))
  io.stdout(
    `wrote ${relative(io.cwd, target)}; state will live in .loop/ (kept out of git). Next: loop-controller run\n`,
  )
  return EXIT.complete
}

/** The exit code for where a loop is (or what an iteration ended with). */
const EXIT_FOR: Record<LoopState['status'] | IterationResult['outcome'], number> = {
  running: EXIT.complete,
  continue: EXIT.complete,
  superseded: EXIT.complete,
  complete: EXIT.complete,
  blocked: EXIT.blocked,
  waiting: EXIT.waiting,
  capped: EXIT.capped,
  aborted: EXIT.aborted,
}

function exitFor(status: LoopState['status'] | IterationResult['outcome']): number {
  return EXIT_FOR[status]
}

function reportError(error: unknown, io: CliIo): number {
  if (
    error instanceof UsageError ||
    error instanceof ConfigError ||
    error instanceof PolicyError ||
    error instanceof PatternError ||
    error instanceof StateQuarantinedError ||
    error instanceof StateFromTheFutureError ||
    error instanceof EngineError ||
    error instanceof NoLoopError ||
    (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
  ) {
    io.stderr(`loop-controller: ${messageOf(error)}\n`)
    return EXIT.usage
  }
  if (error instanceof StoreConflictError) {
    io.stderr(`loop-controller: another controller changed this loop at the same time: ${messageOf(error)}\n`)
    return EXIT.internal
  }
  io.stderr(
    `loop-controller: internal error: ${messageOf(error)}\n${error instanceof Error && error.stack ? `${error.stack}\n` : ''}`,
  )
  return EXIT.internal
}

function cliLogger(io: CliIo): Logger {
  return {
    info: (m) => io.stderr(`${m}\n`),
    warning: (m) => io.stderr(`warning: ${m}\n`),
    error: (m) => io.stderr(`error: ${m}\n`),
    debug: (m) => {
      if (io.env.LOOP_DEBUG) io.stderr(`debug: ${m}\n`)
    },
    group: async (_name, body) => body(),
  }
}

// ---- rendering for people ----

const MARK: Record<CheckResult['verdict'], string> = {
  pass: '✓',
  fail: '✗',
  timeout: '⏱',
  skipped: '–',
  flaky: '~',
  error: '!',
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`
}

function checkCell(result: CheckResult): string {
  const mark = result.autoFixed ? '✓ (auto-fixed)' : MARK[result.verdict]
  return `${result.name} ${mark}${result.verdict === 'skipped' ? '' : ` ${seconds(result.durationMs)}`}`
}

function analysisLine(result: CheckResult): string {
  const where = result.locations[0]
    ? ` at ${result.locations[0].file}${result.locations[0].line ? `:${result.locations[0].line}` : ''}`
    : ''
  return `${result.pattern ?? 'unclassified'} (${(result.confidence ?? 0).toFixed(2)})${where} → ${result.strategy ?? 'analyze_then_fix'}`
}

function plainProgress(io: CliIo): ProgressSink {
  return {
    phase: (iteration, stage, text) => io.stdout(`#${iteration}  ${stage.padEnd(9)}  ${text}\n`),
    checkFinished: (iteration, result) => io.stdout(`#${iteration}  VERIFY     ${checkCell(result)}\n`),
    analysis: (iteration, result) => io.stdout(`#${iteration}             ${result.name}: ${analysisLine(result)}\n`),
  }
}

/** On a terminal: one line per iteration phase, rewritten in place as checks start and finish. */
function ttyProgress(io: CliIo): ProgressSink {
  const cells = new Map<string, string>()
  let open = false
  const draw = (iteration: number) => {
    io.stdout(`\r\x1b[K#${iteration}  VERIFY     ${[...cells.values()].join(' · ')}`)
    open = true
  }
  const close = () => {
    if (open) io.stdout('\n')
    open = false
    cells.clear()
  }
  return {
    phase: (iteration, stage, text) => {
      close()
      io.stdout(`#${iteration}  ${stage.padEnd(9)}  ${text}\n`)
    },
    checkStarted: (iteration, check) => {
      cells.set(check.name, `${check.name} …`)
      draw(iteration)
    },
    checkFinished: (iteration, result) => {
      cells.set(result.name, checkCell(result))
      draw(iteration)
    },
    analysis: (iteration, result) => {
      close()
      io.stdout(`#${iteration}             ${result.name}: ${analysisLine(result)}\n`)
    },
  }
}

function closingLine(result: IterationResult, elapsedMs: number, trail: string): string {
  const state = result.state
  const took =
    elapsedMs >= 60_000
      ? `${Math.floor(elapsedMs / 60_000)} min ${Math.round((elapsedMs % 60_000) / 1000)} s`
      : seconds(elapsedMs)
  const head = {
    complete: `COMPLETE in ${state.iteration} iteration${state.iteration === 1 ? '' : 's'}, ${took}`,
    blocked: `BLOCKED at iteration ${state.iteration}: ${state.statusReason || result.next.reason}`,
    waiting: `WAITING for approval: ${result.next.reason}`,
    capped: `CAP REACHED at iteration ${state.iteration}: ${result.next.reason}`,
    aborted: `ABORTED: ${state.statusReason || result.next.reason}`,
    superseded: 'SUPERSEDED: another controller ran this iteration',
    continue: `iteration ${state.iteration} done · next: ${result.nextAction}`,
  }[result.outcome]
  return `${head} · audit trail: ${trail}/`
}

function statusJson(state: LoopState) {
  return {
    loopId: state.loopId,
    stage: state.stage,
    status: state.status,
    iteration: state.iteration,
    maxIterations: state.maxIterations,
    failures: state.failures.total,
    gates: state.gates,
    metrics: { ...state.metrics, attempts: undefined, aggregate: aggregateMetrics(state.metrics) },
    usage: { wallMs: state.usage.wallMs, tokens: state.usage.tokens, costUsd: state.usage.costUsd },
  }
}

function renderStatus(state: LoopState, policy: Policy | null): string {
  const minutes = Math.round(state.usage.wallMs / 60_000)
  const budget = [
    `iteration ${state.iteration} of ${state.maxIterations}`,
    state.budget.minutes ? `${minutes} min of ${state.budget.minutes}` : `${minutes} min`,
    state.budget.costUsd
      ? `$${state.usage.costUsd.toFixed(2)} of $${state.budget.costUsd.toFixed(2)}`
      : state.usage.costUsd > 0
        ? `$${state.usage.costUsd.toFixed(2)}`
        : '',
    state.budget.tokens
      ? `${state.usage.tokens} of ${state.budget.tokens} tokens`
      : state.usage.tokens > 0
        ? `${state.usage.tokens} tokens`
        : '',
  ].filter(Boolean)
  const lines = [`${state.loopId} · ${state.stage} · ${state.status} · ${budget.join(' · ')}`]
  if (state.statusReason) lines.push(`reason        ${state.statusReason}`)
  if (state.capabilities.total > 0) {
    lines.push(
      `capabilities  ${state.capabilities.completed.length} of ${state.capabilities.total} done${state.capabilities.current ? ` (current: ${state.capabilities.current})` : ''}`,
    )
  }
  const current = state.failures.current
  const resolved = state.failures.history.filter((f) => f.resolution !== 'open').length
  lines.push(
    `failures      ${state.failures.total} (${resolved} resolved)${current ? ` · last: ${current.pattern ?? 'unclassified'} in ${current.check}` : ''}`,
  )
  const gates = Object.entries(state.gates)
  if (gates.length > 0) {
    lines.push(
      `gates         ${gates.map(([name, g]) => `${name} ${g.status === 'approved' ? `✓ approved by @${g.decidedBy}` : g.status}`).join(' · ')}`,
    )
  }
  const m = state.metrics
  const aggregate = aggregateMetrics(m)
  lines.push(
    `metrics       ${m.workCalls} agent calls · ${m.autoFixes} auto-fixes · ${m.flakes} flakes · ${m.regressions} regressions · escalation rate ${(aggregate.escalationRate * 100).toFixed(0)}%`,
  )
  if (state.lastDecision) lines.push(`last          ${state.lastDecision.kind}: ${state.lastDecision.reason}`)
  // The next action needs the loop's policy, which lives in its config (not in state).
  if (policy) lines.push(`next          ${summarizeNextAction(state, decide(state, { now: new Date() }, policy))}`)
  return `${lines.join('\n')}\n`
}

function renderHistory(state: LoopState, events: { iteration: number; type: string; message: string }[]): string {
  const lines = [`${state.loopId} · ${state.iteration} iteration${state.iteration === 1 ? '' : 's'} · ${state.status}`]
  let current = -1
  for (const e of events) {
    if (e.type === 'decision' && e.message.startsWith('EXECUTE') === false && e.message.startsWith('RETRY') === false)
      continue
    if (e.iteration !== current) {
      current = e.iteration
      lines.push(`#${e.iteration}`)
    }
    lines.push(`  ${e.type.padEnd(16)} ${e.message}`)
  }
  return `${lines.join('\n')}\n`
}
