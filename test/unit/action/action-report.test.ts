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

  const manyLocations = checkResultSchema.parse({
    name: 'test',
    kind: 'test',
    verdict: 'fail',
    pattern: 'test-failure',
    locations: Array.from({ length: 12 }, (_, i) => ({ file: `/ws/src/f${i}.ts`, line: i + 1, message: `bad ${i}` })),
  })

  /** The report of a loop that stopped as `status`, with 12 failing locations, and what the step did, in order. */
  async function stopped(status: 'blocked' | 'capped' | 'aborted', failOn: ('blocked' | 'capped' | 'aborted')[]) {
    const { io, deps } = setup()
    const steps: string[] = []
    const logged = {
      ...io,
      annotateError: (message: string, where: { file: string; line?: number; title: string }) => {
        steps.push(`annotation ${where.file}:${where.line}`)
        io.annotateError(message, where)
      },
      setFailed: (message: string, title?: string) => {
        steps.push('failed')
        io.setFailed(message, title)
      },
    }
    const state = loopState({ iteration: 3, status, statusReason: `stopped as ${status}` })
    const result = iterationResult({ state, checks: [manyLocations], nextAction: 'stop' })
    await report(
      runOf({ issue: { number: 5 } }),
      { loopId: 'l1', state, outcome: status, result, root: '/ws', failOn },
      { ...deps, io: logged },
    )
    return { io, steps }
  }

  it.each(['blocked', 'capped', 'aborted'] as const)(
    'fails the job of a %s loop with one annotation that comes first and is never the one dropped',
    async (status) => {
      const { io, steps } = await stopped(status, ['blocked', 'capped', 'aborted'])
      // GitHub shows 10 annotations per step: the end state's and 9 locations.
      expect(steps[0]).toBe('failed')
      expect(steps.filter((step) => step.startsWith('annotation'))).toHaveLength(9)
      expect(io.failed).toHaveLength(1)
      expect(io.failed[0]).toMatch(
        new RegExp(`^loop-controller: l1 .* \\(iteration 3 of \\d+\\): Why: stopped as ${status}\\. Next: `),
      )
      expect(io.outputs['next-action']).toMatch(
        /^(push a fix|run the workflow again with the loop's `loop-id` and a `max-iterations` above 3|nothing: the loop is over)/,
      )
    },
  )

  it('leaves the job green for an end state fail-on does not name, with all 10 locations', async () => {
    const { io, steps } = await stopped('capped', ['blocked'])
    expect(io.failed).toEqual([])
    expect(steps).toHaveLength(10)
  })

  it('never fails the job of a running loop', async () => {
    const { io, deps } = setup()
    const state = loopState({ iteration: 1 })
    const result = iterationResult({ state, checks: [failing] })
    await report(
      runOf({ issue: { number: 5 } }),
      { loopId: 'l1', state, outcome: 'continue', result, root: '/ws', failOn: ['blocked', 'capped', 'aborted'] },
      deps,
    )
    expect(io.failed).toEqual([])
  })

  it('links the pull request from the issue`s comment, and not from the pull request`s own', async () => {
    const { comments, deps } = setup()
    const state = loopState({
      pullRequest: { number: 9, url: 'https://github.com/o/r/pull/9', merged: false },
      task: { source: 'issue', number: 5, title: 't', body: '', author: 'alice' },
    })
    await report(
      runOf({}),
      { loopId: 'l1', state, outcome: 'continue', result: iterationResult({ state }), root: '/' },
      deps,
    )
    const byTarget = Object.fromEntries(comments.map((c) => [c.issueNumber, c.body]))
    expect(Object.keys(byTarget)).toEqual(['5', '9'])
    expect(byTarget[5]).toContain('[pull request \\#9](https://github.com/o/r/pull/9)')
    expect(byTarget[9]).not.toContain('pull request \\#9')
  })

  it('links the dashboard from the summary and every comment when the job knows it, and not otherwise', async () => {
    const { io, comments, deps } = setup()
    const run = runOf({ issue: { number: 5 } }, { GITHUB_STEP_SUMMARY: '/tmp/summary.md' })
    const state = loopState({ pullRequest: { number: 9, url: 'https://github.com/o/r/pull/9', merged: false } })
    const dashboard = { number: 3, url: 'https://github.com/o/r/issues/3' }
    const input = { loopId: 'l1', state, outcome: 'continue' as const, result: iterationResult({ state }), root: '/' }
    await report(run, { ...input, dashboard }, deps)
    const linked = 'dashboard: [\\#3](https://github.com/o/r/issues/3)'
    expect(io.summaries[0]).toContain(linked)
    expect(comments.map((c) => [c.issueNumber, c.body.includes(linked)])).toEqual([
      [5, true],
      [9, true],
    ])
    await report(run, input, deps)
    expect(io.summaries[1]).not.toContain('dashboard')
  })
})
