// The job's report through the action's door to `core`: annotations, summary, sticky comment, outputs.
import { describe, expect, it } from 'vitest'
import { report } from '../../../src/action/report.js'
import { buildRunContext } from '../../../src/action/run-context.js'
import { createRedactor } from '../../../src/domain/redact.js'
import { checkResultSchema } from '../../../src/domain/state.js'
import { iterationResult, loopState, recordingIO } from './fakes.js'

function runOf(payload: Record<string, unknown>, env: Record<string, string> = {}) {
  return buildRunContext({
    env: { GITHUB_REPOSITORY: 'o/r', GITHUB_RUN_ID: '77', ...env },
    event: { eventName: 'issues', payload, runId: 77 },
    getInput: (name) => (name === 'github-token' ? 'tok' : ''),
    cwd: '/',
  })
}

function setup() {
  const comments: { issueNumber: number; marker: string; body: string }[] = []
  const io = recordingIO()
  const github = {
    upsertStickyComment: async (request: { issueNumber: number; marker: string; body: string }) => {
      comments.push(request)
      return { id: 1, url: 'https://github.com/o/r/issues/5#c1', created: true }
    },
  }
  return { io, comments, deps: { github, io, redact: createRedactor(['s3cret']) } }
}

const failing = checkResultSchema.parse({
  name: 'test',
  kind: 'test',
  verdict: 'fail',
  pattern: 'test-failure',
  locations: [{ file: '/ws/src/a.ts', line: 3, message: 'expected s3cret' }],
})

describe('report', () => {
  it('annotates, writes the summary, comments on the issue and sets every output', async () => {
    const { io, comments, deps } = setup()
    const run = runOf({ issue: { number: 5 } }, { GITHUB_STEP_SUMMARY: '/tmp/summary.md' })
    const state = loopState({ iteration: 2 })
    const result = iterationResult({ state, checks: [failing], nextAction: 'Fix s3cret.' })
    await report(run, { loopId: 'l1', state, outcome: 'continue', result, root: '/ws' }, deps)
    expect(io.annotations).toEqual(['src/a.ts:3 expected ***'])
    expect(io.summaries).toHaveLength(1)
    expect(io.summaries[0]).toContain('https://github.com/o/r/actions/runs/77')
    expect(comments).toEqual([expect.objectContaining({ issueNumber: 5, marker: expect.stringContaining('l1') })])
    expect(io.infos).toEqual(['Status comment posted: https://github.com/o/r/issues/5#c1'])
    expect(io.outputs).toEqual({
      iteration: 2,
      stage: state.stage,
      verdict: 'fail',
      status: state.status,
      pattern: 'test-failure',
      'next-action': 'Fix ***.',
      'pr-number': '',
    })
  })

  it('writes no summary off a runner, and comments on the loop pull request when the event has no subject', async () => {
    const { io, comments, deps } = setup()
    const state = loopState({ pullRequest: { number: 9, url: 'https://github.com/o/r/pull/9', merged: false } })
    await report(
      runOf({}),
      { loopId: 'l1', state, outcome: 'continue', result: iterationResult({ state }), root: '/' },
      deps,
    )
    expect(io.summaries).toEqual([])
    expect(io.infos[0]).toBe('GITHUB_STEP_SUMMARY is not set (not on a runner): no job summary written.')
    expect(comments.map((c) => c.issueNumber)).toEqual([9])
    expect(io.outputs['pr-number']).toBe(9)
  })

  it('posts no comment when there is nothing to comment on', async () => {
    const { comments, deps } = setup()
    const state = loopState()
    await report(
      runOf({}),
      { loopId: 'l1', state, outcome: 'continue', result: iterationResult({ state }), root: '/' },
      deps,
    )
    expect(comments).toEqual([])
  })
})
