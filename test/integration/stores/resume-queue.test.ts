// A dashboard tick resumes a BLOCKED loop: it gave its slot back when it ended, so the resume is saved
// queued, asking for a slot, and before its next iteration is dispatched it asks like a new loop, on a
// real state branch (a bare repository the job's checkout reaches as `origin`). With both slots held it
// is saved queued and its comment says so, and its journey says why it waits (before the save that
// carries it); with a slot free it takes it and is saved running; with queue.json unreadable it stays
// queued, asking (where the sweeper finds it), and the error says so.
import { execFile } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COMMIT_IDENTITY } from '../../../src/action/commit-identity.js'
import { buildRunContext } from '../../../src/action/run-context.js'
import { queueResumed, slotStore } from '../../../src/action/slots.js'
import { GitStore } from '../../../src/adapters/stores/git-store.js'
import type { JourneyEvent } from '../../../src/domain/journey.js'
import { ASKING_FOR_SLOT } from '../../../src/domain/slot-sweep.js'
import type { SlotsRecord } from '../../../src/domain/slots.js'
import { fixedClock, recordingIO, recordingLogger } from '../../unit/action/fakes.js'
import { makeState } from './fixtures.js'

const run = promisify(execFile)
let base: string
let jobs = 0

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'resume-queue-'))
})
afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

/** A job's checkout of a fresh repository whose state branch holds `record` and the loops' states. */
async function job(record: SlotsRecord, states: Record<string, Parameters<typeof makeState>[0]>) {
  jobs++
  const bare = join(base, `remote-${jobs}.git`)
  const root = join(base, `work-${jobs}`)
  await run('git', ['init', '--bare', '--quiet', bare])
  await run('git', ['init', '--quiet', root])
  await run('git', ['-C', root, 'remote', 'add', 'origin', bare])
  const context = buildRunContext({
    env: {
      GITHUB_REPOSITORY: 'acme/demo',
      GITHUB_WORKFLOW_REF: 'acme/demo/.github/workflows/loop.yml@refs/heads/main',
      RUNNER_TEMP: join(base, `temp-${jobs}`),
    },
    event: { eventName: 'issues', payload: { action: 'edited' }, runId: 40 + jobs },
    getInput: (name) => ({ 'github-token': 'tok', 'max-loops': '2' })[name] ?? '',
    cwd: root,
  })
  const store = new GitStore({
    repoDir: base,
    remote: bare,
    identity: COMMIT_IDENTITY,
    workDir: join(base, `s-${jobs}`),
  })
  for (const loopId of Object.keys(states)) await store.save(loopId, { ...makeState(loopId, 1) }, null)
  await slotStore(context, root).update([], () => ({ record, result: null }))
  const comments: Array<{ issueNumber: number; body: string }> = []
  const github = {
    dispatchWorkflow: async () => ({}),
    getIssueState: async () => 'open' as const,
    getWorkflowRun: async () => ({ status: 'in_progress', conclusion: null }),
    upsertStickyComment: async (request: { issueNumber: number; marker: string; body: string }) => {
      comments.push(request)
      return { url: 'https://example.invalid/c/1', created: true, id: 1 }
    },
  }
  const journey: JourneyEvent[] = []
  const deps = {
    audit: {
      appendEvents: async (events: readonly JourneyEvent[]) => {
        journey.push(...events)
      },
    },
    store,
    github,
    io: recordingIO(),
    logger: recordingLogger(),
    clock: fixedClock,
    redact: (t: string) => t,
  }
  return { context, root, store, comments, deps, journey }
}

const AT = '2026-01-01T00:00:00.000Z'

describe('queueResumed: a resumed loop asks for a slot like a new one', () => {
  it('with both slots held it is saved queued, in line, and its comment says so', async () => {
    const held = {
      running: [
        { loopId: 'a', since: AT },
        { loopId: 'b', since: AT },
      ],
      queued: [],
    }
    const { context, root, store, comments, deps, journey } = await job(held, { a: 'a', b: 'b', z: 'z' })
    const loaded = await store.load('z')
    const resumed = {
      ...loaded!.state,
      status: 'queued' as const,
      statusReason: ASKING_FOR_SLOT,
      task: { source: 'issue' as const, number: 9, title: 't', body: '', author: 'alice' },
    }
    await store.save('z', resumed, loaded!.version)

    const state = await queueResumed(context, { loopId: 'z', state: resumed, root }, deps)
    expect(state.status).toBe('queued')
    expect((await store.load('z'))?.state.status).toBe('queued')
    const record = await slotStore(context, root).current()
    expect(record.running.map((holder) => holder.loopId)).toEqual(['a', 'b'])
    expect(record.queued.map((entry) => entry.loopId)).toEqual(['z'])
    expect(comments.map((comment) => comment.issueNumber)).toEqual([9])
    expect(comments[0]?.body).toMatch(/`z` is queued[\s\S]*all 2 slots are in use \(max-loops: 2\)/)
    expect(journey.map((event) => [event.type, event.message])).toEqual([
      ['queued', 'loop z queued (1 of 1 in line): all 2 slots are in use (max-loops: 2)'],
    ])
  })

  it('with a slot free it takes it and goes on running', async () => {
    const { context, root, store, comments, deps, journey } = await job(
      { running: [{ loopId: 'a', since: AT }], queued: [] },
      { a: 'a', z: 'z' },
    )
    const resumed = await asking(store, 'z')
    const state = await queueResumed(context, { loopId: 'z', state: resumed, root }, deps)
    expect(state.status).toBe('running')
    expect((await store.load('z'))?.state).toMatchObject({ status: 'running', statusReason: '' })
    const record = await slotStore(context, root).current()
    expect(record.running.map((holder) => holder.loopId)).toEqual(['a', 'z'])
    expect(comments).toEqual([])
    expect(journey.map((event) => event.type)).toEqual(['admitted'])
  })

  it('with queue.json unreadable it stays queued, asking for a slot, and the error says what to do', async () => {
    const { context, root, store, deps } = await job({ running: [], queued: [] }, { z: 'z' })
    const resumed = await asking(store, 'z')
    await spoilQueue(join(base, `remote-${jobs}.git`))
    await expect(queueResumed(context, { loopId: 'z', state: resumed, root }, deps)).rejects.toThrow(
      /its slot was not asked for \(.*queue\.json.*\); it stays queued, asking for a slot, until a sweeper marks it BLOCKED/,
    )
    expect((await store.load('z'))?.state).toMatchObject({ status: 'queued', statusReason: ASKING_FOR_SLOT })
  })

  it('a resume that made the loop wait for its gates asks for nothing', async () => {
    const { context, root, store, deps } = await job({ running: [], queued: [] }, { z: 'z' })
    const waiting = { ...(await store.load('z'))!.state, status: 'waiting' as const }
    expect(await queueResumed(context, { loopId: 'z', state: waiting, root }, deps)).toBe(waiting)
    expect((await slotStore(context, root).current()).running).toEqual([])
  })
})

/** The loop saved as a resume that must ask for a slot saves it (`askingForSlot`). */
async function asking(store: GitStore, loopId: string) {
  const loaded = (await store.load(loopId))!
  const state = { ...loaded.state, status: 'queued' as const, statusReason: ASKING_FOR_SLOT }
  await store.save(loopId, state, loaded.version)
  return state
}

/** queue.json on the state branch made unreadable (a field it does not know), as a person's bad edit would. */
async function spoilQueue(bare: string): Promise<void> {
  const dir = join(base, `spoil-${jobs}`)
  await run('git', ['clone', '--quiet', '--branch', 'loop-state', bare, dir])
  writeFileSync(join(dir, 'queue.json'), '{"running":[],"queued":[],"extra":1}\n')
  const who = ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid']
  await run('git', ['-C', dir, 'add', 'queue.json'])
  await run('git', ['-C', dir, ...who, 'commit', '--quiet', '-m', 'bad queue'])
  await run('git', ['-C', dir, 'push', '--quiet', 'origin', 'loop-state'])
}
