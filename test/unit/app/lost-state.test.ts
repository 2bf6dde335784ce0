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

describe('where a dispatched iteration without its state says BLOCKED', () => {
  const pull = { number: 9, url: 'https://github.com/o/r/pull/9' }

  /** A loop whose pull request lookup answers `find`, recording the branches it was asked for. */
  function watchedLoop(find: (branch: string) => Promise<{ number: number; url: string } | null>) {
    const loop = fakeLoop(CONFIG, () => ({ exitCode: 1, output: 'boom' }))
    const asked: string[] = []
    const warnings: string[] = []
    loop.deps.logger = { ...loop.deps.logger, warning: (message) => warnings.push(message) }
    loop.deps.openPullRequestOf = (branch) => {
      asked.push(branch)
      return find(branch)
    }
    return { loop, asked, warnings }
  }

  it.each([
    ['the open pull request of its branch, recorded in the BLOCKED state', async () => pull, pull],
    ['nowhere more when its branch has no open pull request', async () => null, undefined],
  ])('%s', async (_name, find, expected) => {
    const { loop, asked, warnings } = watchedLoop(find)
    const result = await runOneIteration({ ...loop.input, dispatchedIteration: 4 }, loop.deps)
    expect(result.outcome).toBe('blocked')
    expect(asked).toEqual(['loop/unit'])
    expect(warnings.join('\n')).not.toMatch(/was not looked up/)
    const saved = (await loop.store.load('unit'))?.state
    expect(saved).toMatchObject({ status: 'blocked', iteration: 3 })
    expect(saved?.statusReason).toMatch(/^the state of iteration 3 was not found/)
    expect(saved?.pullRequest).toEqual(expected && { ...expected, merged: false })
    const found = loop.audit.journey.filter((e) => e.type === 'pull-request').map((e) => e.message)
    expect(found).toEqual(expected ? [`pull request #9 found by the loop's branch loop/unit: ${pull.url}`] : [])
  })

  it('still stops BLOCKED and saves why when the lookup fails (a 403, the rate limit), warning that it did', async () => {
    const { loop, asked, warnings } = watchedLoop(async () => {
      throw new Error('GitHub GET /repos/o/r/pulls was refused (403): the workflow needs pull-requests: read')
    })
    const result = await runOneIteration({ ...loop.input, dispatchedIteration: 4 }, loop.deps)
    expect(result.outcome).toBe('blocked')
    expect(asked).toEqual(['loop/unit'])
    const saved = (await loop.store.load('unit'))?.state
    expect(saved).toMatchObject({ status: 'blocked', iteration: 3 })
    expect(saved?.pullRequest).toBeUndefined()
    expect(warnings.join('\n')).toContain(
      'Loop unit: the open pull request of loop/unit was not looked up (GitHub GET /repos/o/r/pulls was refused (403): the workflow needs pull-requests: read)',
    )
  })

  it('asks nothing in an iteration that has its state, nor of a lost state that holds its pull request', async () => {
    const { loop, asked } = watchedLoop(async () => pull)
    await runOneIteration(loop.input, loop.deps)
    await runOneIteration({ ...loop.input, dispatchedIteration: 2 }, loop.deps)
    expect(asked).toEqual([])
    const stored = await loop.store.load('unit')
    if (!stored) throw new Error('the iterations saved no state')
    const known = { number: 3, url: 'https://github.com/o/r/pull/3', merged: false }
    await loop.store.save('unit', { ...stored.state, pullRequest: known }, stored.version)
    // A rollback: the stored state is of iteration 2, iteration 5 is dispatched.
    expect((await runOneIteration({ ...loop.input, dispatchedIteration: 5 }, loop.deps)).outcome).toBe('blocked')
    expect(asked).toEqual([])
    expect((await loop.store.load('unit'))?.state.pullRequest).toEqual(known)
  })
})
