// In-memory ports for running whole iterations in a unit test: no processes, no files, no git.

import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { IterationDeps, IterationInput } from '../../../src/app/iteration.js'
import { type LoopConfigInput, loopConfigSchema } from '../../../src/config/loop-config.js'
import { buildLibrary } from '../../../src/domain/analysis/index.js'
import type { PlanFile } from '../../../src/domain/fan-out.js'
import type { JourneyEvent } from '../../../src/domain/journey.js'
import type { LoopState } from '../../../src/domain/state.js'
import type { AuditLog } from '../../../src/ports/audit.js'
import type { RunRequest, RunResult } from '../../../src/ports/process.js'
import { type Store, StoreConflictError } from '../../../src/ports/store.js'

const fixtures = resolve(import.meta.dirname, '..', '..', 'fixtures')

/** A captured tool output from test/fixtures. */
export function fixture(path: string): string {
  return readFileSync(join(fixtures, path), 'utf8')
}

/** What a scripted command prints and how it exits. */
export interface Script {
  exitCode: number
  output?: string
}

/** A process runner that answers each command from a script and remembers every run. */
export class ScriptedRunner {
  readonly runs: Array<{ command: string; env: Record<string, string>; logFile?: string; cwd: string }> = []

  /** `script` answers each command, told where it runs. */
  constructor(private readonly script: (command: string, cwd: string) => Script) {}

  async run(request: RunRequest): Promise<RunResult> {
    const command = typeof request.command === 'string' ? request.command : request.command.join(' ')
    this.runs.push({
      command,
      env: request.env,
      ...(request.logFile ? { logFile: request.logFile } : {}),
      cwd: request.cwd,
    })
    const { exitCode, output = '' } = this.script(command, request.cwd)
    request.onOutput?.(Buffer.from(output))
    return {
      exitCode,
      signal: null,
      timedOut: false,
      durationMs: 5,
      output,
      totalBytes: output.length,
      truncated: false,
      ...(request.logFile ? { logFile: request.logFile } : {}),
    }
  }

  /** How often `command` ran in `iteration` (told apart by the iteration's log folder). */
  count(command: string, iteration: number): number {
    const folder = join('runs', String(iteration))
    return this.runs.filter((run) => run.command === command && run.logFile?.includes(folder)).length
  }
}

export class MemoryStore implements Store {
  readonly kind = 'file' as const
  private saved = new Map<string, { state: LoopState; version: string }>()
  private versions = 0

  async load(loopId: string) {
    const entry = this.saved.get(loopId)
    return entry ? { state: structuredClone(entry.state), version: entry.version } : null
  }

  async save(loopId: string, state: LoopState, expected: string | null) {
    if ((this.saved.get(loopId)?.version ?? null) !== expected) throw new StoreConflictError('moved on')
    const version = String(++this.versions)
    this.saved.set(loopId, { state: structuredClone(state), version })
    return version
  }

  async reset() {}

  describe(loopId: string) {
    return `memory:${loopId}`
  }
}

export class MemoryAudit implements AuditLog {
  readonly journey: JourneyEvent[] = []
  readonly files = new Map<string, string>()
  private pending = new Map<string, JourneyEvent[]>()

  async appendEvents(events: readonly JourneyEvent[]) {
    this.journey.push(...events)
  }
  async stagePending(marker: string, events: readonly JourneyEvent[]) {
    this.pending.set(marker, [...events])
  }
  async commitPending(marker: string) {
    this.journey.push(...(this.pending.get(marker) ?? []))
    this.pending.delete(marker)
  }
  async discardPending(marker: string) {
    this.pending.delete(marker)
  }
  async recoverPending() {}
  async writeIteration(n: number, markdown: string) {
    this.files.set(`iterations/${n}.md`, markdown)
  }
  async writeFinal(markdown: string) {
    this.files.set('final.md', markdown)
  }
  async writeDeadLetter(signature: string, markdown: string) {
    this.files.set(`dead-letters/${signature}.md`, markdown)
  }
}

/** A loop wired to in-memory ports; `next()` runs one iteration. */
export function fakeLoop(config: Partial<LoopConfigInput>, script: (command: string, cwd: string) => Script) {
  const runner = new ScriptedRunner(script)
  const store = new MemoryStore()
  const audit = new MemoryAudit()
  const files = new Map<string, string>()
  let clock = Date.parse('2025-01-01T00:00:00.000Z')
  const input: IterationInput = {
    config: loopConfigSchema.parse({ work: { run: 'agent' }, ...config }),
    library: buildLibrary(),
    loopId: 'unit',
    cwd: '/repo',
    loopDir: '/repo/.loop/unit',
    excludeFromCommits: ['.loop'],
    commit: false,
    identity: { name: 'test', email: 'test@example.com' },
    env: { PATH: '/bin' },
    maxParallel: 2,
    toolVersion: '0.0.0-test',
  }
  const deps: IterationDeps = {
    store,
    runner,
    git: null,
    clock: {
      now: () => {
        clock += 1000
        return new Date(clock)
      },
      sleep: async (ms) => {
        clock += ms
      },
    },
    logger: { info() {}, warning() {}, error() {}, debug() {}, group: (_name, body) => body() },
    workspace: {
      readText: async (path) => files.get(path) ?? null,
      writeText: async (path, text) => {
        files.set(path, text)
      },
      makeDir: async () => {},
      remove: async (path) => {
        files.delete(path)
      },
      removeFile: async (path) => (files.delete(path) ? 'removed' : 'absent'),
      realPath: async (path) => path,
    },
    audit,
    redact: (text) => text,
  }
  return { input, deps, runner, store, audit, files }
}

/** A verify leg's plan of iteration 1 for `legs`, between two made-up commits (base `a…`, candidate `b…`). */
export function legPlan(legs: PlanFile['legs']): PlanFile & { iteration: number; candidate: string } {
  return {
    version: 2,
    loopId: 'unit',
    stateVersion: null,
    iteration: 1,
    stage: 'IMPLEMENT',
    base: 'a'.repeat(40),
    candidate: 'b'.repeat(40),
    report: null,
    legs,
    baseline: false,
  }
}
