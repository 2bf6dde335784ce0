// A dispatched iteration whose state the store lost stops BLOCKED and says so; it never starts over quietly.
import { describe, expect, it } from 'vitest'
import { runOneIteration } from '../../../src/app/iteration.js'
import { fakeLoop } from './iteration-fakes.js'

const CONFIG = { 'flake-check': { enabled: false }, checks: [{ name: 'unit', run: 'npm test', kind: 'test' as const }] }

describe('a dispatched iteration without its state', () => {
  it('stops BLOCKED when the state of the iteration before it is missing, runs no work, and saves why', async () => {
    const loop = fakeLoop(CONFIG, () => ({ exitCode: 0 }))
    const warnings: string[] = []
    loop.deps.logger = { ...loop.deps.logger, warning: (message) => warnings.push(message) }
    const result = await runOneIteration({ ...loop.input, dispatchedIteration: 4 }, loop.deps)
    expect(result.outcome).toBe('blocked')
    expect(loop.runner.runs).toEqual([])
    const saved = (await loop.store.load('unit'))?.state
    expect(saved).toMatchObject({ status: 'blocked', iteration: 3, claimedIteration: 3 })
    expect(saved?.statusReason).toMatch(/^the state of iteration 3 was not found in the file store/)
    expect(warnings.join('\n')).toMatch(/Loop unit: the state of iteration 3 was not found/)
    expect(loop.audit.journey.map((e) => e.type)).toContain('escalated')
  })

  it('stops BLOCKED on a state older than the iteration before the dispatched one (a rollback)', async () => {
    const loop = fakeLoop(CONFIG, () => ({ exitCode: 1, output: 'boom' }))
    await runOneIteration(loop.input, loop.deps)
    const runs = loop.runner.runs.length
    const result = await runOneIteration({ ...loop.input, dispatchedIteration: 3 }, loop.deps)
    expect(result.outcome).toBe('blocked')
    expect(loop.runner.runs).toHaveLength(runs)
    expect((await loop.store.load('unit'))?.state.statusReason).toMatch(
      /^the stored state is of iteration 1, but iteration 3 was dispatched/,
    )
  })

  it('leaves a loop that ended as it is: its own reason is kept, nothing runs', async () => {
    const loop = fakeLoop(CONFIG, () => ({ exitCode: 1, output: 'boom' }))
    await runOneIteration(loop.input, loop.deps)
    const stored = await loop.store.load('unit')
    if (!stored) throw new Error('the first iteration saved no state')
    const ended = { ...stored.state, status: 'blocked' as const, statusReason: 'a person must look' }
    await loop.store.save('unit', ended, stored.version)
    const runs = loop.runner.runs.length
    await runOneIteration({ ...loop.input, dispatchedIteration: 3 }, loop.deps)
    expect(loop.runner.runs).toHaveLength(runs)
    expect((await loop.store.load('unit'))?.state).toMatchObject({
      status: 'blocked',
      statusReason: 'a person must look',
    })
  })

  it('goes on as usual for the first iteration and for the iteration after the stored one', async () => {
    const loop = fakeLoop(CONFIG, () => ({ exitCode: 1, output: 'boom' }))
    expect((await runOneIteration({ ...loop.input, dispatchedIteration: 1 }, loop.deps)).outcome).toBe('continue')
    expect((await runOneIteration({ ...loop.input, dispatchedIteration: 2 }, loop.deps)).outcome).toBe('continue')
    expect((await loop.store.load('unit'))?.state.iteration).toBe(2)
  })
})
