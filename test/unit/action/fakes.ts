// Fakes for the action's modules: a log that records, an in-memory store, the `core` door recorded.
import type { ActionIO } from '../../../src/action/actions-io.js'
import type { IterationResult } from '../../../src/app/iteration.js'
import { simpleModeConfig } from '../../../src/config/load-config.js'
import { initialState } from '../../../src/domain/engine/index.js'
import { policyFromConfig } from '../../../src/domain/policy.js'
import type { LoopState } from '../../../src/domain/state.js'
import type { Logger } from '../../../src/ports/logger.js'
import { type Loaded, type Store, StoreConflictError } from '../../../src/ports/store.js'

export const NOW = new Date('2026-01-01T00:00:00.000Z')
export const fixedClock = { now: () => NOW, sleep: async () => {} }

export function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = []
  return {
    lines,
    info: (message) => lines.push(`info: ${message}`),
    debug: (message) => lines.push(`debug: ${message}`),
    warning: (message) => lines.push(`warning: ${message}`),
    error: (message) => lines.push(`error: ${message}`),
    group: (_name, body) => body(),
  }
}

export function recordingIO(): ActionIO & {
  outputs: Record<string, string | number>
  infos: string[]
  summaries: string[]
  annotations: string[]
  failed: string[]
} {
  const io = {
    outputs: {} as Record<string, string | number>,
    infos: [] as string[],
    summaries: [] as string[],
    annotations: [] as string[],
    failed: [] as string[],
    getInput: () => '',
    setSecret: () => {},
    setOutput: (name: string, value: string | number) => {
      io.outputs[name] = value
    },
    info: (message: string) => {
      io.infos.push(message)
    },
    warning: (message: string) => {
      io.infos.push(`warning: ${message}`)
    },
    group: <T>(_name: string, body: () => Promise<T>) => body(),
    annotateError: (message: string, where: { file: string; line?: number }) => {
      io.annotations.push(`${where.file}:${where.line ?? ''} ${message}`)
    },
    writeSummary: async (markdown: string) => {
      io.summaries.push(markdown)
    },
    setFailed: (message: string, title?: string) => {
      io.failed.push(title === undefined ? message : `${title}: ${message}`)
    },
  }
  return io
}

/** A store in memory, with compare-and-swap like the real ones. */
export function memoryStore(initial: Record<string, LoopState> = {}): Store & { saved: LoopState[] } {
  const states = new Map<string, Loaded>(
    Object.entries(initial).map(([loopId, state]) => [loopId, { state, version: '1' }]),
  )
  const saved: LoopState[] = []
  return {
    kind: 'file',
    saved,
    load: async (loopId) => states.get(loopId) ?? null,
    save: async (loopId, state, expected) => {
      if ((states.get(loopId)?.version ?? null) !== expected) throw new StoreConflictError(`loop ${loopId} moved`)
      const version = String(Number(expected ?? 0) + 1)
      states.set(loopId, { state, version })
      saved.push(state)
      return version
    },
    reset: async (loopId) => {
      states.delete(loopId)
    },
    describe: (loopId) => `memory ${loopId}`,
  }
}

export function loopState(overrides: Partial<LoopState> = {}): LoopState {
  const config = simpleModeConfig({ work: 'true', verify: ['true'] })
  return {
    ...initialState({ loopId: 'l1', goal: 'Make it pass.', policy: policyFromConfig(config), now: NOW }),
    ...overrides,
  }
}

export function iterationResult(overrides: Partial<IterationResult> = {}): IterationResult {
  const state = overrides.state ?? loopState()
  return {
    outcome: 'continue',
    state,
    decision: { kind: 'WAIT_FOR_HUMAN', reason: 'test' },
    next: { kind: 'WAIT_FOR_HUMAN', reason: 'test' },
    nextAction: 'Keep going.',
    checks: [],
    commit: null,
    record: null,
    version: '1',
    ...overrides,
  }
}
