// Re-dispatch: the next iteration is a new run of the workflow the job came from.
import { describe, expect, it } from 'vitest'
import { redispatch } from '../../../src/action/dispatch.js'
import type { WorkflowDispatch } from '../../../src/ports/github.js'
import { fixedClock, loopState, memoryStore, NOW, recordingLogger } from './fakes.js'

describe('redispatch', () => {
  it.each([
    { jobRef: 'refs/heads/release', dispatchedTo: 'refs/heads/release' },
    { jobRef: 'refs/tags/v1', dispatchedTo: 'refs/tags/v1' },
    // A review, label or merge of the pull request ran on its merge ref, which no dispatch can name.
    { jobRef: 'refs/pull/7/merge', dispatchedTo: 'refs/heads/trunk' },
  ])('dispatches the next iteration of a job on $jobRef to the same workflow on $dispatchedTo', async (row) => {
    const requests: WorkflowDispatch[] = []
    const logger = recordingLogger()
    const github = {
      dispatchWorkflow: async (request: WorkflowDispatch) => {
        requests.push(request)
        return { htmlUrl: 'https://github.com/o/r/actions/runs/9' }
      },
    }
    const store = memoryStore({ l1: loopState({ iteration: 4 }) })
    const failed = await redispatch(
      { workflowRef: `o/r/.github/workflows/loop.yml@${row.jobRef}`, runId: '77', event: { defaultBranch: 'trunk' } },
      { loopId: 'l1', state: loopState({ iteration: 4 }) },
      { github, logger, store, clock: fixedClock },
    )
    expect(failed).toBeNull()
    // Recorded before the call: a job that dies after it still leaves the sweeper a fact to go on.
    expect(store.saved.map((state) => state.dispatch)).toEqual([
      { iteration: 5, workflow: 'loop.yml', ref: row.dispatchedTo, at: NOW.toISOString(), by: 'run 77' },
    ])
    expect(requests).toEqual([
      { workflow: 'loop.yml', ref: row.dispatchedTo, inputs: { 'loop-id': 'l1', iteration: '5' } },
    ])
    expect(logger.lines).toEqual(['info: Dispatched iteration 5 of loop l1: https://github.com/o/r/actions/runs/9.'])
  })

  it.each([
    { kind: 'git', run: '91' },
    // No sweeper reads another store: its extra save would cost an upload for nothing.
    { kind: 'artifact', run: undefined },
  ] as const)('records the run the dispatch started, where GitHub said, in the $kind store: $run', async (row) => {
    const github = { dispatchWorkflow: async () => ({ runId: 91, htmlUrl: 'https://github.com/o/r/actions/runs/91' }) }
    const store = { ...memoryStore({ l1: loopState({ iteration: 4 }) }), kind: row.kind }
    const failed = await redispatch(
      { workflowRef: 'o/r/.github/workflows/loop.yml@refs/heads/main', runId: '77', event: { defaultBranch: 'main' } },
      { loopId: 'l1', state: loopState({ iteration: 4 }) },
      { github, logger: recordingLogger(), store, clock: fixedClock },
    )
    expect(failed).toBeNull()
    expect((await store.load('l1'))?.state.dispatch).toEqual({
      iteration: 5,
      workflow: 'loop.yml',
      ref: 'refs/heads/main',
      at: NOW.toISOString(),
      by: 'run 77',
      ...(row.run ? { run: row.run } : {}),
    })
  })

  it.each([undefined, 'not a workflow ref'])('warns and dispatches nothing for the ref %s', async (workflowRef) => {
    const logger = recordingLogger()
    const github = {
      dispatchWorkflow: async () => {
        throw new Error('no dispatch expected')
      },
    }
    await redispatch(
      { workflowRef, runId: '1', event: { defaultBranch: 'main' } },
      { loopId: 'l1', state: loopState() },
      { github, logger, store: memoryStore({ l1: loopState() }), clock: fixedClock },
    )
    expect(logger.lines).toEqual([
      `warning: Cannot tell which workflow to re-dispatch from GITHUB_WORKFLOW_REF '${workflowRef}'.`,
    ])
  })

  it('records a failed dispatch in the state and returns the failure, instead of throwing', async () => {
    const store = memoryStore({ l1: loopState({ iteration: 2 }) })
    const github = {
      dispatchWorkflow: async () => {
        throw new Error('POST .../dispatches: 502 Bad Gateway')
      },
    }
    const failed = await redispatch(
      { workflowRef: 'o/r/.github/workflows/loop.yml@refs/heads/main', runId: '9', event: { defaultBranch: 'main' } },
      { loopId: 'l1', state: loopState({ iteration: 2 }) },
      { github, logger: recordingLogger(), store, clock: fixedClock },
    )
    expect(failed?.message).toMatch(/re-dispatch of iteration 3 of loop l1 failed: POST .*502 Bad Gateway/)
    expect(failed?.message).toMatch(/command: sweep/)
    const stored = (await store.load('l1'))?.state
    expect(stored?.dispatch).toEqual({
      iteration: 3,
      workflow: 'loop.yml',
      ref: 'refs/heads/main',
      at: NOW.toISOString(),
      by: 'run 9',
      failed: 'POST .../dispatches: 502 Bad Gateway',
    })
    expect(failed?.state).toEqual(stored)
  })

  it('records on the state another writer saved meanwhile (a person approved a gate), not over it', async () => {
    const store = memoryStore({ l1: loopState({ iteration: 2 }) })
    const original = store.load
    let first = true
    store.load = async (loopId) => {
      const loaded = await original(loopId)
      if (first && loaded) {
        first = false
        // Someone saves between this load and the record's save.
        await store.save(loopId, { ...loaded.state, statusReason: 'a person was here' }, loaded.version)
      }
      return loaded
    }
    await redispatch(
      { workflowRef: 'o/r/.github/workflows/loop.yml@refs/heads/main', runId: '9', event: { defaultBranch: 'main' } },
      { loopId: 'l1', state: loopState({ iteration: 2 }) },
      { github: { dispatchWorkflow: async () => ({}) }, logger: recordingLogger(), store, clock: fixedClock },
    )
    const stored = (await store.load('l1'))?.state
    expect(stored?.statusReason).toBe('a person was here')
    expect(stored?.dispatch?.iteration).toBe(3)
  })
})
