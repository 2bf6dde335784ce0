/**
 * Crash consistency (issue 7, item 1): runs a loop with the bundled CLI, SIGKILLs the controller (and the
 * commands it started, as a runner that dies takes its children with it) at a chosen point, checks what
 * is on disk, resumes with `loop-controller run`, and at the end checks the whole loop.
 *
 * Kill points: a uniform random delay in [0, T] (T: an uninterrupted run's duration) and triggers that
 * watch the disk (a fresh work log, a fresh check log, a fresh commit, the iteration record that is
 * written just before the state, the journey log) plus a small random delay, so that every phase gets
 * hits. Which phase a kill landed in is judged afterwards from what is on disk, not from the trigger.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { FileStore } from '../../src/adapters/file-store.js'
import type { LoopState } from '../../src/domain/state.js'
import {
  alive,
  checkpointIterations,
  cliEnv,
  createQuickLoop,
  processesIn,
  runCliAsync,
  runCliSync,
} from './harness.js'

export const PHASES = [
  'before-work',
  'work',
  'check',
  'commit',
  'after-commit',
  'state-write',
  'between-iterations',
] as const
export type Phase = (typeof PHASES)[number]

const TRIGGERS = ['random', 'work', 'check', 'commit', 'record', 'state', 'journey'] as const
type Trigger = (typeof TRIGGERS)[number]

export interface CrashFigures {
  kills: number
  byPhase: Record<Phase, number>
  resumed: number
  invalidStates: number
  doubleCounted: number
  lost: number
  tornRecords: number
  tornLastLines: number
  verdictMatches: number
  trials: number
  uninterruptedMs: number
  /** How many iterations the uninterrupted run took to COMPLETE. */
  uninterruptedIterations: number
  /** Resumes that stopped at a lock file left by a killed writer until a person deleted it. */
  manualUnlocks: { git: number; state: number }
  problems: string[]
}

export interface CrashOptions {
  /** How many kills in all (at least). */
  kills: number
  parallelism?: number
  killsPerTrial?: number
  /** Seed for the random kill points, so a failing campaign can be replayed. */
  seed?: number
  log?: (line: string) => void
}

const LOOP_ID = 'crash'

/** A small deterministic PRNG (mulberry32), so a campaign is replayable from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

function freshSince(path: string, since: number): boolean {
  try {
    return statSync(path).mtimeMs >= since
  } catch {
    return false
  }
}

function readState(dir: string): LoopState | null {
  try {
    return JSON.parse(readFileSync(join(dir, '.loop', LOOP_ID, 'loop-state.json'), 'utf8')) as LoopState
  } catch {
    return null
  }
}

/** Kills the controller, then every process still working in the repository (its orphaned commands). */
async function killEverything(dir: string, controller: number): Promise<void> {
  try {
    process.kill(controller, 'SIGKILL')
  } catch {
    // Already gone.
  }
  for (let sweep = 0; sweep < 50; sweep++) {
    const left = processesIn(dir).filter(alive)
    if (left.length === 0 && !alive(controller)) return
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // Gone meanwhile.
      }
    }
    await sleep(5)
  }
}

/** Which phase the kill interrupted, judged from the files left behind. */
function classify(dir: string, attemptStart: number): Phase {
  const loopDir = join(dir, '.loop', LOOP_ID)
  const state = readState(dir)
  const k = Math.max(state?.iteration ?? 0, state?.claimedIteration ?? 0) + 1
  const names = existsSync(loopDir) ? readdirSync(loopDir) : []
  if (names.some((n) => n === 'loop-state.lock' || n.endsWith('.tmp'))) return 'state-write'
  if (existsSync(join(dir, '.git', 'index.lock'))) return 'commit'
  if (checkpointIterations(dir).includes(k) || freshSince(join(loopDir, 'iterations', `${k}.md`), attemptStart)) {
    return 'after-commit'
  }
  const runs = join(loopDir, 'runs', String(k))
  if (freshSince(runs, attemptStart) || freshSince(join(runs, 'work.log'), attemptStart)) {
    const checkLogs = ['unit.log', 'lint.log'].some((n) => freshSince(join(runs, n), attemptStart))
    if (checkLogs) return 'check'
    if (freshSince(join(runs, 'work.log'), attemptStart)) return 'work'
    return 'before-work'
  }
  return 'between-iterations'
}

/** Journey-log lines that do not parse: in the middle (a torn record) and at the end (tolerated). */
function tornLines(dir: string): { middle: number; last: number } {
  const file = join(dir, '.loop', LOOP_ID, 'journey-log.jsonl')
  if (!existsSync(file)) return { middle: 0, last: 0 }
  const lines = readFileSync(file, 'utf8').split('\n')
  if (lines.at(-1) === '') lines.pop()
  let middle = 0
  let last = 0
  lines.forEach((line, i) => {
    try {
      JSON.parse(line)
    } catch {
      if (i === lines.length - 1) last++
      else middle++
    }
  })
  return { middle, last }
}

async function waitForTrigger(
  dir: string,
  trigger: Trigger,
  attemptStart: number,
  rand: () => number,
  uninterruptedMs: number,
  finished: () => boolean,
): Promise<void> {
  const loopDir = join(dir, '.loop', LOOP_ID)
  if (trigger === 'random') {
    await sleep(rand() * uninterruptedMs)
    return
  }
  const state = readState(dir)
  const k = Math.max(state?.iteration ?? 0, state?.claimedIteration ?? 0) + 1
  const headLog = join(dir, '.git', 'logs', 'HEAD')
  const stateBeingWritten = (folder: string) =>
    existsSync(folder) && readdirSync(folder).some((n) => n === 'loop-state.lock' || n.endsWith('.tmp'))
  const deadline = Date.now() + 30_000
  for (;;) {
    if (finished() || Date.now() > deadline) return
    const runs = join(loopDir, 'runs', String(k))
    const hit =
      (trigger === 'work' && freshSince(join(runs, 'work.log'), attemptStart)) ||
      (trigger === 'check' &&
        (freshSince(join(runs, 'unit.log'), attemptStart) ||
          freshSince(join(runs, 'baseline', 'unit.log'), attemptStart))) ||
      (trigger === 'commit' && existsSync(join(dir, '.git', 'index.lock')) && freshSince(headLog, 0)) ||
      (trigger === 'state' && stateBeingWritten(loopDir)) ||
      (trigger === 'record' && freshSince(join(loopDir, 'iterations', `${k}.md`), attemptStart)) ||
      (trigger === 'journey' && freshSince(join(loopDir, 'journey-log.jsonl'), attemptStart))
    if (hit) break
    // The commit and the state write last a few milliseconds: poll those without a timer's delay.
    await (trigger === 'commit' || trigger === 'state' ? new Promise((resolve) => setImmediate(resolve)) : sleep(1))
  }
  const extra = { work: 40, check: 100, commit: 0, record: 6, state: 0, journey: 3 }[trigger]
  if (extra > 0) await sleep(rand() * extra)
}

/** Measures an uninterrupted run of the quick loop: its duration and its verdict. */
export function uninterruptedRun(): { ms: number; status: number | null; iterations: number } {
  const dir = createQuickLoop()
  try {
    const started = Date.now()
    const run = runCliSync(dir, ['run', '--loop-id', LOOP_ID], cliEnv())
    const state = readState(dir)
    if (run.status !== 0 || state?.status !== 'complete') {
      throw new Error(`the uninterrupted run did not COMPLETE (exit ${run.status}):\n${run.stdout}\n${run.stderr}`)
    }
    return { ms: Date.now() - started, status: run.status, iterations: state.iteration }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Runs the campaign and returns its figures. */
export async function runCrashCampaign(options: CrashOptions): Promise<CrashFigures> {
  const log = options.log ?? (() => {})
  const rand = random(options.seed ?? 7)
  const reference = uninterruptedRun()
  log(`uninterrupted: COMPLETE in ${reference.iterations} iterations, ${reference.ms} ms`)
  const figures: CrashFigures = {
    kills: 0,
    byPhase: Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<Phase, number>,
    resumed: 0,
    invalidStates: 0,
    doubleCounted: 0,
    lost: 0,
    tornRecords: 0,
    tornLastLines: 0,
    verdictMatches: 0,
    trials: 0,
    uninterruptedMs: reference.ms,
    uninterruptedIterations: reference.iterations,
    manualUnlocks: { git: 0, state: 0 },
    problems: [],
  }
  const killsPerTrial = options.killsPerTrial ?? 3
  let running = 0
  let next = 0

  const trial = async (index: number): Promise<void> => {
    const dir = createQuickLoop()
    const problem = (text: string) => figures.problems.push(`trial ${index} (${dir}): ${text}`)
    /** A lock left by a killed writer that a run does not clear itself: do what its message says (delete it). */
    const clearStaleLock = (stderr: string): boolean => {
      const gitLock = join(dir, '.git', 'index.lock')
      const stateLock = join(dir, '.loop', LOOP_ID, 'loop-state.lock')
      if (/index\.lock': File exists/.test(stderr) && existsSync(gitLock)) {
        figures.manualUnlocks.git++
        rmSync(gitLock)
        return true
      }
      if (/Could not lock .*loop-state\.lock/.test(stderr) && existsSync(stateLock)) {
        figures.manualUnlocks.state++
        rmSync(stateLock)
        return true
      }
      return false
    }
    try {
      let killsHere = 0
      let completedEarly = false
      for (let attempt = 0; attempt < killsPerTrial + 2 && killsHere < killsPerTrial; attempt++) {
        const trigger = TRIGGERS[Math.floor(rand() * TRIGGERS.length)] as Trigger
        const attemptStart = Date.now() - 1
        const run = runCliAsync(dir, ['run', '--loop-id', LOOP_ID], cliEnv())
        let finished = false
        const done = run.done.then((r) => {
          finished = true
          return r
        })
        await waitForTrigger(dir, trigger, attemptStart, rand, reference.ms, () => finished)
        if (finished) {
          const result = await done
          if (result.status === 0) {
            completedEarly = true
            break
          }
          if (clearStaleLock(result.stderr)) continue
          problem(`a run exited ${result.status} before its kill: ${result.stderr.slice(-800)}`)
          continue
        }
        await killEverything(dir, run.pid)
        await done
        killsHere++
        figures.kills++
        const phase = classify(dir, attemptStart)
        figures.byPhase[phase]++
        // The state must load (valid, or absent) after every kill.
        try {
          await new FileStore({ root: join(dir, '.loop') }).load(LOOP_ID)
        } catch (error) {
          figures.invalidStates++
          problem(`after a kill in ${phase}: the state does not load: ${(error as Error).message}`)
        }
        const torn = tornLines(dir)
        figures.tornRecords += torn.middle
        figures.tornLastLines += torn.last
      }
      // Resume to the end, uninterrupted.
      let final = completedEarly
        ? { status: 0, stdout: '', stderr: '' }
        : runCliSync(dir, ['run', '--loop-id', LOOP_ID])
      // A lock left by a killed writer that the resumed run does not clear itself: do what its message
      // says (delete the lock file), count it, and resume again.
      for (let unlock = 0; unlock < 3 && final.status !== 0 && clearStaleLock(final.stderr); unlock++) {
        final = runCliSync(dir, ['run', '--loop-id', LOOP_ID])
      }
      if (!completedEarly) figures.resumed += killsHere > 0 ? 1 : 0
      const state = readState(dir)
      if (final.status === 0 && state?.status === 'complete') figures.verdictMatches += killsHere
      else
        problem(
          `resumed run ended with exit ${final.status}, status ${state?.status}: ${final.stdout.slice(-400)} ${final.stderr.slice(0, 800)}`,
        )
      final = { status: 0, stdout: '', stderr: '' }
      // No iteration counted twice or lost.
      const commits = checkpointIterations(dir)
      const dupCommits = commits.filter((n, i) => commits.indexOf(n) !== i)
      if (dupCommits.length > 0) {
        figures.doubleCounted += dupCommits.length
        problem(`checkpoint commits repeated for iterations ${dupCommits.join(', ')} (all: ${commits.join(', ')})`)
      }
      const journey = join(dir, '.loop', LOOP_ID, 'journey-log.jsonl')
      if (!existsSync(journey)) problem('no journey log at the end')
      const events = (existsSync(journey) ? readFileSync(journey, 'utf8') : '').split('\n').flatMap((line) => {
        try {
          return [JSON.parse(line) as { type: string; iteration: number }]
        } catch {
          return []
        }
      })
      const started = events.filter((e) => e.type === 'iteration-started').map((e) => e.iteration)
      const dupStarted = started.filter((n, i) => started.indexOf(n) !== i)
      if (dupStarted.length > 0) {
        figures.doubleCounted += dupStarted.length
        problem(`iteration-started logged twice for ${dupStarted.join(', ')}`)
      }
      const total = state?.iteration ?? 0
      for (let n = 1; n <= total; n++) {
        const missing: string[] = []
        if (!started.includes(n)) missing.push('journey log')
        if (!existsSync(join(dir, '.loop', LOOP_ID, 'iterations', `${n}.md`))) missing.push('iterations/')
        if (missing.length > 0) {
          figures.lost++
          problem(`iteration ${n} of ${total} missing from ${missing.join(' and ')}`)
        }
      }
      const checkpoints = (state?.checkpoints ?? []).map((c) => c.iteration)
      if (new Set(checkpoints).size !== checkpoints.length) {
        figures.doubleCounted++
        problem(`state checkpoints repeat an iteration: ${checkpoints.join(', ')}`)
      }
      if (started.some((n) => n > total)) {
        figures.doubleCounted++
        problem(`the journey log has iterations past the state's ${total}: ${started.join(', ')}`)
      }
    } finally {
      if (figures.problems.every((p) => !p.includes(dir))) rmSync(dir, { recursive: true, force: true })
    }
  }

  const worker = async () => {
    while (figures.kills + running * killsPerTrial < options.kills) {
      const index = next++
      running++
      await trial(index).finally(() => {
        running--
      })
      figures.trials++
      log(`trial ${index}: ${figures.kills} kills so far`)
    }
  }
  await Promise.all(Array.from({ length: options.parallelism ?? 2 }, worker))
  return figures
}

/** The figure line, e.g. `crash: 200 kills across 7 phases, ...`. */
export function crashFigureLine(f: CrashFigures): string {
  const phases = PHASES.filter((p) => f.byPhase[p] > 0)
  return (
    `crash: ${f.kills} kills across ${phases.length} phases (${PHASES.map((p) => `${p} ${f.byPhase[p]}`).join(', ')}), ` +
    `${f.resumed} trials resumed, ${f.invalidStates} invalid states, ${f.doubleCounted} double-counted iterations, ` +
    `${f.lost} lost iterations, ${f.tornRecords} torn records (${f.tornLastLines} torn last lines tolerated), ` +
    `verdict matches: ${f.verdictMatches}/${f.kills}; ` +
    `resumes that needed a stale lock deleted by hand: ${f.manualUnlocks.git} git index.lock, ${f.manualUnlocks.state} loop-state.lock`
  )
}
