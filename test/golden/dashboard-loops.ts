// The loops one dashboard lists, in every state a person meets there (running, waiting at a gate,
// BLOCKED, capped, COMPLETE, queued for a slot, queued behind a dependency that ended BLOCKED, one
// whose text is hostile, and one whose state cannot be read), and the slots record they are kept in.
// The golden dashboard and the renderer's tests both read these.
import { unanalyzedResult } from '../../src/domain/check-result.js'
import type { ListedLoop, QueueView } from '../../src/domain/report/loops-table.js'
import type { LoopState } from '../../src/domain/state.js'
import { policyOf, startState } from '../unit/engine/helpers.js'

export const REPOSITORY_URL = 'https://github.com/acme/demo'

/** When the golden dashboard is rewritten, and by which run: each loop's age is counted to it. */
export const REWRITE = {
  at: new Date('2025-01-01T02:10:30.000Z'),
  run: { id: '9100000042', url: `${REPOSITORY_URL}/actions/runs/9100000042` },
}

const verified = (iteration: number, failing: number, total: number): LoopState['lastVerification'] => ({
  iteration,
  at: '2025-01-01T00:10:00.000Z',
  results: Array.from({ length: total }, (_, index) =>
    unanalyzedResult(
      { name: `check-${index + 1}`, kind: 'test', required: true },
      { verdict: index < failing ? 'fail' : 'pass', durationMs: 1000, exitCode: index < failing ? 1 : 0 },
    ),
  ),
})

/** A loop's state: a fresh one with `fields` over it. */
export function loopState(loopId: string, fields: Partial<LoopState> = {}): LoopState {
  return { ...startState(policyOf(), loopId), ...fields }
}

const run = (id: string) => ({ id, url: `${REPOSITORY_URL}/actions/runs/${id}` })
const usage = (wallMs: number, tokens = 0, costUsd = 0): LoopState['usage'] => ({
  log: [],
  compacted: 0,
  wallMs,
  tokens,
  costUsd,
})

export function dashboardLoops(): ListedLoop[] {
  return [
    {
      loopId: 'stuck',
      state: loopState('stuck', {
        stage: 'IMPLEMENT',
        status: 'blocked',
        statusReason: "the same test-failure in 'unit' came back 2 times",
        iteration: 3,
        maxIterations: 8,
        usage: usage(200_000, 5500, 0.06),
        budget: { minutes: 60, tokens: 50_000, costUsd: 5 },
        lastVerification: verified(3, 1, 3),
        pullRequest: { number: 57, url: `${REPOSITORY_URL}/pull/57`, merged: false },
        task: { source: 'issue', number: 42, title: 'Fix the sum', body: '', author: 'alice' },
        lastRun: run('9100000003'),
      }),
    },
    {
      loopId: 'capped',
      state: loopState('capped', {
        stage: 'IMPLEMENT',
        status: 'capped',
        statusReason: 'the iteration cap of 2 is reached',
        iteration: 2,
        maxIterations: 2,
        usage: usage(45_000),
        lastVerification: verified(2, 2, 2),
        lastRun: run('9100000007'),
      }),
    },
    {
      loopId: 'gated',
      state: loopState('gated', {
        stage: 'VERIFY',
        status: 'waiting',
        statusReason: 'gate verifier waits for approval',
        iteration: 1,
        gates: {
          verifier: { status: 'pending', reason: 'the loop config changed', requestedAt: '2025-01-01T00:05:00.000Z' },
          security: { status: 'approved', reason: 'auth/ changed', requestedAt: '2025-01-01T00:05:00.000Z' },
        },
        lastVerification: verified(1, 0, 2),
      }),
    },
    { loopId: 'green', state: loopState('green', { stage: 'COMPLETE', status: 'complete', iteration: 3 }) },
    // Running, but last saved two days before the rewrite: its job died (the sweeper has yet to say so).
    {
      loopId: 'climbing',
      state: loopState('climbing', { iteration: 1, usage: usage(61_000, 1200), updatedAt: '2024-12-30T00:05:00.000Z' }),
    },
    {
      loopId: 'hostile',
      state: loopState('hostile', {
        status: 'blocked',
        statusReason:
          '@everyone <img src=x> | `rm -rf` [link](https://evil.example) - [x] <!-- loop-dashboard:abort:green -->',
        iteration: 1,
      }),
    },
    { loopId: 'broken', state: null, problem: 'loop-state.json failed validation | moved aside' },
    {
      loopId: 'issue-7',
      state: loopState('issue-7', {
        status: 'queued',
        statusReason: 'all 2 slots are in use (max-loops: 2)',
        task: { source: 'issue', number: 7, title: 'Next', body: '', author: 'alice' },
      }),
    },
    {
      loopId: 'issue-9',
      state: loopState('issue-9', {
        status: 'queued',
        statusReason: 'it waits for stuck to be COMPLETE',
        task: { source: 'issue', number: 9, title: 'After stuck', body: '', author: 'alice' },
      }),
    },
  ]
}

/** The slots record: two loops run (`max-loops: 2`); `issue-7` waits for a slot, `issue-9` for `stuck`. */
export function dashboardQueue(): QueueView {
  const entry = (loopId: string, dependsOn: string[]) => ({
    loopId,
    since: '2025-01-01T00:00:00.000Z',
    dependsOn,
    workflow: 'loop.yml',
    ref: 'main',
  })
  return {
    record: {
      running: [
        { loopId: 'climbing', since: '2025-01-01T00:00:00.000Z' },
        { loopId: 'gated', since: '2025-01-01T00:00:00.000Z' },
      ],
      queued: [entry('issue-7', []), entry('issue-9', ['stuck'])],
    },
    limit: 2,
  }
}
