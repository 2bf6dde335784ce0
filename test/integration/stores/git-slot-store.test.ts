// The slots record on a real bare repository: several clients (each with its own private repository,
// as each job has its own runner) ask for slots, run, end and give their slots back at the same time.
// Every version of queue.json in the branch's history must keep the limit and admit no loop twice.
import { execFile } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GitSlotStore, SLOTS_FILE } from '../../../src/adapters/stores/git-slot-store.js'
import { GitStore } from '../../../src/adapters/stores/git-store.js'
import { askForSlot, cycleOf, giveBackSlot } from '../../../src/app/slots.js'
import { parseSlotsRecord, type SlotsRecord, slotProblems, type WaitingLoop } from '../../../src/domain/slots.js'
import { systemClock } from '../../../src/ports/clock.js'
import type { Logger } from '../../../src/ports/logger.js'
import { makeState } from './fixtures.js'

const run = promisify(execFile)
const identity = { name: 'loop-controller', email: 'loop-controller@example.invalid' }
const quiet: Logger = { info() {}, warning() {}, debug() {}, error() {} } as unknown as Logger
const clock = systemClock
let base: string
let bare: string
let clients = 0

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'git-slot-store-'))
  bare = join(base, 'remote.git')
  await run('git', ['init', '--bare', '--quiet', bare])
})
afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

/** One job's view: its own private repositories for the state store and the slots record. */
function job() {
  clients++
  return {
    store: new GitStore({ repoDir: base, remote: bare, identity, workDir: join(base, `state-${clients}`) }),
    slots: new GitSlotStore({ repoDir: base, remote: bare, identity, workDir: join(base, `slots-${clients}`) }),
  }
}

/** Every version of queue.json on the branch, oldest first. */
async function history(): Promise<SlotsRecord[]> {
  const log = await run('git', ['--git-dir', bare, 'log', '--reverse', '--format=%H', 'loop-state', '--', SLOTS_FILE])
  const records: SlotsRecord[] = []
  for (const commit of log.stdout.split('\n').filter(Boolean)) {
    const text = (await run('git', ['--git-dir', bare, 'show', `${commit}:${SLOTS_FILE}`])).stdout
    const parsed = parseSlotsRecord(text)
    if ('problem' in parsed) throw new Error(`${commit}: ${parsed.problem}`)
    records.push(parsed.record)
  }
  return records
}

describe('GitSlotStore: slots under compare-and-swap on a real bare repository', () => {
  it('eight loops racing for two slots: no version exceeds the limit or admits a loop twice, and all get to run', async () => {
    const LIMIT = 2
    const loops = Array.from({ length: 8 }, (_, i) => `loop-${i + 1}`)
    const dispatched: string[] = []
    const admittedBy = new Map<string, number>()

    // A job of `loopId`: its state saved, a slot asked for until it is admitted (a release admits it and
    // "dispatches" it, recorded here), one iteration, the end saved, the slot given back.
    const lifecycle = async (loopId: string) => {
      const { store, slots } = job()
      const version = await store.save(loopId, { ...makeState(loopId, 0), status: 'queued' }, null)
      const deps = {
        slots,
        clock,
        logger: quiet,
        start: async (entry: WaitingLoop) => {
          dispatched.push(entry.loopId)
          return undefined
        },
      }
      const request = { loopId, dependsOn: [], workflow: 'loop.yml', ref: 'refs/heads/main', started: false }
      for (let attempt = 0; ; attempt++) {
        const verdict = await askForSlot(request, LIMIT, deps)
        if (verdict.kind === 'admitted') break
        if (attempt > 400) throw new Error(`${loopId} was never admitted`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      admittedBy.set(loopId, (admittedBy.get(loopId) ?? 0) + 1)
      const running = await store.save(loopId, makeState(loopId, 1), version)
      await store.save(loopId, { ...makeState(loopId, 1), status: 'complete' }, running)
      await giveBackSlot(loopId, LIMIT, deps)
    }
    await Promise.all(loops.map(lifecycle))

    const versions = await history()
    expect(versions.length).toBeGreaterThan(loops.length)
    const entered = new Map<string, number>()
    let previous: SlotsRecord = { running: [], queued: [] }
    for (const record of versions) {
      expect(slotProblems(record)).toEqual([])
      expect(record.running.length).toBeLessThanOrEqual(LIMIT)
      for (const holder of record.running) {
        if (!previous.running.some((before) => before.loopId === holder.loopId)) {
          entered.set(holder.loopId, (entered.get(holder.loopId) ?? 0) + 1)
        }
      }
      previous = record
    }
    // Each loop entered a slot exactly once, and ran once.
    expect(Object.fromEntries(entered)).toEqual(Object.fromEntries(loops.map((loopId) => [loopId, 1])))
    expect(Object.fromEntries(admittedBy)).toEqual(Object.fromEntries(loops.map((loopId) => [loopId, 1])))
    // A loop a release admitted was dispatched by that release alone.
    expect(new Set(dispatched).size).toBe(dispatched.length)
    expect(versions.at(-1)).toEqual({ running: [], queued: [], limit: LIMIT })
  }, 120_000)

  it('a loop admitted whose dispatch fails goes back to the head of the line, and the next change starts it', async () => {
    const remote = join(base, 'requeue.git')
    await run('git', ['init', '--bare', '--quiet', remote])
    const store = new GitStore({ repoDir: base, remote, identity, workDir: join(base, 'requeue-state') })
    const slots = new GitSlotStore({ repoDir: base, remote, identity, workDir: join(base, 'requeue-slots') })
    const warnings: string[] = []
    const logger = { ...quiet, warning: (message: string) => warnings.push(message) } as Logger
    let failing = true
    const started: string[] = []
    const deps = {
      slots,
      clock,
      logger,
      start: async (entry: WaitingLoop) => {
        if (failing) throw new Error('HTTP 502')
        started.push(entry.loopId)
        return undefined
      },
    }
    const ask = (loopId: string) =>
      askForSlot({ loopId, dependsOn: [], workflow: 'loop.yml', ref: 'refs/heads/main', started: false }, 1, deps)
    expect((await ask('a')).kind).toBe('admitted')
    expect((await ask('b')).kind).toBe('queued')
    expect((await ask('c')).kind).toBe('queued')
    await store.save('a', { ...makeState('a', 1), status: 'complete' }, null)

    const released = await giveBackSlot('a', 1, deps)
    expect(released.started).toEqual([])
    expect(warnings.join('\n')).toMatch(
      /Loop b was admitted but its job could not be dispatched \(HTTP 502\); it goes back to the head of the queue/,
    )
    const tip = parseSlotsRecord(
      (await run('git', ['--git-dir', remote, 'show', `loop-state:${SLOTS_FILE}`])).stdout,
    ) as { record: SlotsRecord }
    expect(tip.record.running).toEqual([])
    expect(tip.record.queued.map((entry) => entry.loopId)).toEqual(['b', 'c'])

    failing = false
    // Any later change (here a newcomer's request) admits the head of the line and starts it.
    expect((await ask('d')).kind).toBe('queued')
    expect(started).toEqual(['b'])
  })

  it('two loops that wait for each other, asking at once from two jobs: one waits in line, the other is refused with the cycle', async () => {
    const remote = join(base, 'cycle.git')
    await run('git', ['init', '--bare', '--quiet', remote])
    const slotsOf = (n: number) =>
      new GitSlotStore({ repoDir: base, remote, identity, workDir: join(base, `slots-cycle-${n}`) })
    const deps = (n: number) => ({ slots: slotsOf(n), clock, logger: quiet, start: async () => undefined })
    const ask = (loopId: string, dependsOn: string[], n: number) =>
      askForSlot({ loopId, dependsOn, workflow: 'loop.yml', ref: 'refs/heads/main', started: false }, null, deps(n))
    const verdicts = await Promise.all([ask('issue-1', ['issue-2'], 1), ask('issue-2', ['issue-1'], 2)])
    const kinds = verdicts.map((verdict) => verdict.kind).sort()
    expect(kinds).toEqual(['cycle', 'queued'])
    const refused = verdicts.find((verdict) => verdict.kind === 'cycle')
    const record = (await slotsOf(3).current()).queued.map((entry) => entry.loopId)
    expect(record).toHaveLength(1)
    const inLine = record[0]
    const other = inLine === 'issue-1' ? 'issue-2' : 'issue-1'
    expect(refused).toEqual({ kind: 'cycle', cycle: [other, inLine, other] })
    // Asked before a new loop's state is saved: the same cycle, and nothing written.
    const tip = async () => (await run('git', ['--git-dir', remote, 'rev-parse', 'loop-state'])).stdout
    const before = await tip()
    expect(await cycleOf({ loopId: other, dependsOn: [inLine ?? ''] }, slotsOf(5))).toEqual([other, inLine, other])
    expect(await cycleOf({ loopId: 'issue-7', dependsOn: [inLine ?? ''] }, slotsOf(5))).toBeNull()
    expect(await tip()).toBe(before)
    // The loop in line asking again (its dispatched job) closes no cycle: the refused one left none.
    expect((await ask(inLine ?? '', [], 4)).kind).toBe('queued')
  })

  it('refuses a queue.json that is not a slots record, and never overwrites it', async () => {
    const other = join(base, 'other.git')
    await run('git', ['init', '--bare', '--quiet', other])
    const work = join(base, 'work')
    await run('git', ['init', '--quiet', work])
    await run('git', ['-C', work, 'checkout', '--quiet', '-b', 'loop-state'])
    await run('sh', ['-c', `echo '{"running": 3}' > ${join(work, SLOTS_FILE)}`])
    await run('git', ['-C', work, 'add', SLOTS_FILE])
    await run('git', ['-C', work, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '--quiet', '-m', 'bad'])
    await run('git', ['-C', work, 'push', '--quiet', other, 'loop-state'])
    const broken = new GitSlotStore({ repoDir: base, remote: other, identity, workDir: join(base, 'slots-broken') })
    await expect(broken.update([], (record) => ({ record: { ...record, running: [] }, result: null }))).rejects.toThrow(
      /loop-state:queue.json is not a valid slots record \(running: .*\); fix or delete it/,
    )
    // The dashboard's read says the same, and writes nothing either.
    await expect(broken.current()).rejects.toThrow(/loop-state:queue.json is not a valid slots record/)
  })

  it('current(): the record at the tip as the last change left it, empty before any, a read only', async () => {
    const fresh = join(base, 'fresh.git')
    await run('git', ['init', '--bare', '--quiet', fresh])
    const client = (n: number) =>
      new GitSlotStore({ repoDir: base, remote: fresh, identity, workDir: join(base, `slots-current-${n}`) })
    expect(await client(1).current()).toEqual({ running: [], queued: [] })
    const at = '2025-01-01T00:00:00.000Z'
    const entry = { loopId: 'b', since: at, dependsOn: ['a'], workflow: 'loop.yml', ref: 'main' }
    const written = { running: [{ loopId: 'a', since: at }], queued: [entry] }
    await client(1).update([], () => ({ record: written, result: null }))
    const tip = async () => (await run('git', ['--git-dir', fresh, 'rev-parse', 'loop-state'])).stdout
    const before = await tip()
    // Another job's client (its own private repository) reads what the first wrote.
    expect(await client(2).current()).toEqual(written)
    expect(await tip()).toBe(before)
  })
})
