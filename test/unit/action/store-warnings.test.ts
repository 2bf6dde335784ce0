// The store's warnings (data lost, rolled back, not mirrored): annotations as they happen, and a block
// in the job summary and the status comment; its other notes stay in the log.
import { describe, expect, it } from 'vitest'
import { report } from '../../../src/action/report.js'
import { buildRunContext } from '../../../src/action/run-context.js'
import { StoreWarnings } from '../../../src/action/store-warnings.js'
import { createRedactor } from '../../../src/domain/redact.js'
import { iterationResult, loopState, recordingIO, recordingLogger } from './fakes.js'

describe('StoreWarnings', () => {
  it('warns of each loss once and keeps it for the report; a plain note goes to the log only', () => {
    const warnings = new StoreWarnings()
    const logger = recordingLogger()
    const note = warnings.sink(logger)
    note('the cache holds no state for loop l1; reading the artifact', 'info')
    note(
      'the newest snapshot(s) of loop-state-l1 expired (#9): what is read is the older snapshot #8, a rollback',
      'warning',
    )
    note(
      'the newest snapshot(s) of loop-state-l1 expired (#9): what is read is the older snapshot #8, a rollback',
      'warning',
    )
    expect(logger.lines).toEqual([
      'info: the cache holds no state for loop l1; reading the artifact',
      'warning: State store: the newest snapshot(s) of loop-state-l1 expired (#9): what is read is the older snapshot #8, a rollback',
    ])
    expect(warnings.messages).toHaveLength(1)
  })
})

describe('report with store warnings', () => {
  /** A job of run 77 with a step summary, on `eventName`. */
  const runOn = (eventName: string, payload: Record<string, unknown>) =>
    buildRunContext({
      env: { GITHUB_REPOSITORY: 'o/r', GITHUB_RUN_ID: '77', GITHUB_STEP_SUMMARY: '/tmp/summary.md' },
      event: { eventName, payload, runId: 77 },
      getInput: (name) => (name === 'github-token' ? 'tok' : ''),
      cwd: '/',
    })

  it('puts them in the summary and the status comment, redacted', async () => {
    const io = recordingIO()
    const comments: string[] = []
    const github = {
      upsertStickyComment: async (request: { issueNumber: number; marker: string; body: string }) => {
        comments.push(request.body)
        return { id: 1, url: 'https://github.com/o/r/issues/5#c1', created: true }
      },
    }
    const run = runOn('issues', { issue: { number: 5 } })
    const state = loopState({ iteration: 2 })
    const lost = 'loop l1: saved to the cache, but mirroring to the artifact failed: token s3cret refused'
    await report(
      run,
      {
        loopId: 'l1',
        state,
        outcome: 'continue',
        result: iterationResult({ state }),
        root: '/',
        storeWarnings: [lost],
      },
      { github, io, redact: createRedactor(['s3cret']) },
    )
    const block =
      '> [!WARNING]\n> The state store lost, rolled back or did not mirror data in this job:\n' +
      '> - loop l1: saved to the cache, but mirroring to the artifact failed: token *** refused\n'
    expect(io.summaries.join('')).toContain(block)
    expect(comments.join('')).toContain(block)
  })

  it('adds nothing when the store did not warn', async () => {
    const io = recordingIO()
    const run = runOn('workflow_dispatch', {})
    const state = loopState()
    const github = { upsertStickyComment: async () => ({ id: 1, url: 'u', created: true }) }
    await report(
      run,
      { loopId: 'l1', state, outcome: 'continue', result: iterationResult({ state }), root: '/', storeWarnings: [] },
      { github, io, redact: (text) => text },
    )
    // The summary is written, without the block.
    expect(io.summaries.join('')).toContain('`l1`')
    expect(io.summaries.join('')).not.toContain('The state store lost')
  })
})
