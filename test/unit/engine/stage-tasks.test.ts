import { describe, expect, it } from 'vitest'
import { decide, type UnfinishedTask } from '../../../src/domain/engine/index.js'
import { at, iterate, policyOf, startState } from './helpers.js'

// IMPLEMENT has the task `changelog`; its checks all pass, so only the task stands between it and COMPLETE.
const policy = policyOf({
  stages: { IMPLEMENT: { tasks: [{ name: 'changelog', run: 'grep -q Unreleased CHANGELOG.md' }] } },
})
const notDone = (excerpt = 'CHANGELOG.md has no Unreleased section'): UnfinishedTask[] => [
  { task: 'changelog', excerpt },
]

/** Runs one iteration per entry: the task fails (with that output) or, for null, is done by the work. */
function runTask(outputs: readonly (string | null)[]) {
  let state = startState(policy)
  const statuses: string[] = []
  for (const output of outputs) {
    const done = output === null
    state = iterate(state, policy, done ? { tasksCompleted: ['changelog'] } : { tasksFailed: notDone(output) }).state
    statuses.push(state.status)
    if (state.status !== 'running') break
  }
  return { state, statuses }
}

describe('a stage task not done after the work counts against the retry budget', () => {
  it.each([
    ['done by the first work', [null], ['complete']],
    ['done on the second attempt', ['no section', null], ['running', 'complete']],
    // retry.same-error is 2: the third attempt with nothing changed is the last.
    [
      'never done, the same output each time',
      ['no section', 'no section', 'no section', 'x'],
      ['running', 'running', 'blocked'],
    ],
    // Another message is progress, as for a check: the counters start again, bounded by retry.total.
    [
      'never done, other output each time',
      [
        'missing Unreleased heading',
        'entry lacks a date stamp',
        'duplicate version header found',
        'trailing whitespace detected',
      ],
      ['running', 'running', 'running', 'running'],
    ],
  ])('%s', (_name, outputs, statuses) => {
    expect(runTask(outputs).statuses).toEqual(statuses)
  })

  it('the handoff names the task, its stage, the attempts, what its command said and the ways on', () => {
    const { state } = runTask(['no section', 'no section', 'no section'])
    expect(state.status).toBe('blocked')
    expect(state.statusReason).toBe(
      `the IMPLEMENT task 'changelog' is still not done after 3 attempts (no section); do it and resume the loop, or skip it: skip changelog --reason "why"`,
    )
    expect(decide(state, { now: at(9) }, policy).kind).toBe('WAIT_FOR_HUMAN')
  })

  it('a retry is decided for the task, and a check failing is judged before the task', () => {
    const once = runTask(['no section']).state
    const decision = decide(once, { now: at(5) }, policy)
    expect(decision).toMatchObject({ kind: 'RETRY', stage: 'IMPLEMENT' })
    expect(once.failures.current?.check).toBe('task:changelog')
  })

  it('without a report of the task (it did not run this iteration) the stage just waits for it, as before', () => {
    const { state } = iterate(startState(policy), policy, {})
    expect(state.status).toBe('running')
    expect(state.failures.current).toBeNull()
    expect(state.statusReason).toContain('changelog')
  })
})
