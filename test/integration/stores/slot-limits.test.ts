// The limit a change of queue.json is made under, on a real bare repository: a job whose workflow sets no
// `max-loops` (one that only runs the loops another workflow admits, or starts its own) keeps the limit
// the record was last changed under, so its release admits one loop, not the whole line; only a job that
// sets the input changes the limit, and it is warned when its value differs from the recorded one.
import { execFile } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GitSlotStore } from '../../../src/adapters/stores/git-slot-store.js'
import { GitStore } from '../../../src/adapters/stores/git-store.js'
import { askForSlot, giveBackSlot } from '../../../src/app/slots.js'
import type { WaitingLoop } from '../../../src/domain/slots.js'
import { systemClock } from '../../../src/ports/clock.js'
import type { Logger } from '../../../src/ports/logger.js'
import { makeState } from './fixtures.js'

const run = promisify(execFile)
const identity = { name: 'loop-controller', email: 'loop-controller@example.invalid' }
let base: string

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'slot-limits-'))
})
afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

describe('the limit of queue.json across workflows that set max-loops and workflows that do not', () => {
  it('a release or a request without max-loops keeps the recorded limit; an explicit other value changes it, with a warning', async () => {
    const remote = join(base, 'limits.git')
    await run('git', ['init', '--bare', '--quiet', remote])
    const store = new GitStore({ repoDir: base, remote, identity, workDir: join(base, 'state') })
    const slots = new GitSlotStore({ repoDir: base, remote, identity, workDir: join(base, 'slots') })
    const warnings: string[] = []
    const logger = { info() {}, debug() {}, error() {}, warning: (message: string) => warnings.push(message) }
    const started: string[] = []
    const deps = {
      slots,
      clock: systemClock,
      logger: logger as unknown as Logger,
      start: async (entry: WaitingLoop) => {
        started.push(entry.loopId)
        return undefined
      },
    }
    const ask = (loopId: string, limit: number | null) =>
      askForSlot({ loopId, dependsOn: [], workflow: 'loop.yml', ref: 'refs/heads/main', started: false }, limit, deps)

    // The issue workflow (max-loops 1) starts a and queues b, c and d.
    expect((await ask('a', 1)).kind).toBe('admitted')
    for (const loopId of ['b', 'c', 'd']) expect((await ask(loopId, 1)).kind).toBe('queued')
    // A job of a workflow without max-loops starts a new loop: it waits in line under the recorded 1.
    const newcomer = await ask('e', null)
    expect(newcomer.kind === 'queued' && [newcomer.wait.position, newcomer.wait.limit]).toEqual([4, 1])

    // a ends in a job without max-loops: one loop takes its slot, and the record keeps its limit.
    await store.save('a', { ...makeState('a', 1), status: 'complete' }, null)
    const released = await giveBackSlot('a', null, deps)
    expect(released.started.map((entry) => entry.loopId)).toEqual(['b'])
    expect(started).toEqual(['b'])
    const after = await slots.current()
    expect([after.running.map((holder) => holder.loopId), after.queued.map((entry) => entry.loopId)]).toEqual([
      ['b'],
      ['c', 'd', 'e'],
    ])
    expect(after.limit).toBe(1)
    // Where the line stands is told under that limit too.
    expect(released.inLine.map(({ loopId, wait }) => [loopId, wait.position, wait.limit])).toEqual([
      ['c', 1, 1],
      ['d', 2, 1],
      ['e', 3, 1],
    ])
    expect(warnings).toEqual([])

    // A job that sets another value changes the limit for every loop, and says so.
    expect((await ask('f', 3)).kind).toBe('queued')
    expect(started).toEqual(['b', 'c', 'd'])
    expect((await slots.current()).limit).toBe(3)
    expect(warnings).toEqual([
      'max-loops is 3 in this job, but queue.json was last changed under max-loops 1 (another workflow sets a different value); the limit is 3 from now on. Set the same max-loops in every workflow that runs these loops.',
    ])
  })
})
