// Re-dispatch: the next iteration is a new run of the workflow the job came from.
import { describe, expect, it } from 'vitest'
import { redispatch } from '../../../src/action/dispatch.js'
import type { WorkflowDispatch } from '../../../src/ports/github.js'
import { loopState, recordingLogger } from './fakes.js'

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
    await redispatch(
      { workflowRef: `o/r/.github/workflows/loop.yml@${row.jobRef}`, event: { defaultBranch: 'trunk' } },
      { loopId: 'l1', state: loopState({ iteration: 4 }) },
      { github, logger },
    )
    expect(requests).toEqual([
      { workflow: 'loop.yml', ref: row.dispatchedTo, inputs: { 'loop-id': 'l1', iteration: '5' } },
    ])
    expect(logger.lines).toEqual(['info: Dispatched iteration 5 of loop l1: https://github.com/o/r/actions/runs/9.'])
  })

  it.each([undefined, 'not a workflow ref'])('warns and dispatches nothing for the ref %s', async (workflowRef) => {
    const logger = recordingLogger()
    const github = {
      dispatchWorkflow: async () => {
        throw new Error('no dispatch expected')
      },
    }
    await redispatch(
      { workflowRef, event: { defaultBranch: 'main' } },
      { loopId: 'l1', state: loopState() },
      { github, logger },
    )
    expect(logger.lines).toEqual([
      `warning: Cannot tell which workflow to re-dispatch from GITHUB_WORKFLOW_REF '${workflowRef}'.`,
    ])
  })
})
