// A queued loop a person aborted is reported by the job that applied the abort: its comment on the
// loop's issue says aborted by whom and from which place in line; the job summary and the outputs only
// where the job's event is about the loop (not a dashboard tick's), and the job is never failed.
import { describe, expect, it } from 'vitest'
import { abortedInLineReason, reportAbortedInLine } from '../../../src/action/aborted-in-line.js'
import { buildRunContext } from '../../../src/action/run-context.js'
import type { QueueWait } from '../../../src/domain/slots.js'
import { loopState, recordingIO, recordingLogger } from './fakes.js'

function run(eventName: string, payload: Record<string, unknown>) {
  return buildRunContext({
    env: { GITHUB_REPOSITORY: 'acme/demo', GITHUB_STEP_SUMMARY: '/tmp/summary.md' },
    event: { eventName, payload, runId: 7 },
    getInput: (name) => ({ 'github-token': 'tok' })[name] ?? '',
    cwd: '/here',
  })
}

const wait: QueueWait = {
  position: 2,
  queued: 3,
  running: 1,
  limit: 1,
  dependencies: { pending: [], endedShort: [] },
  slotOnly: true,
}
const aborted = loopState({
  loopId: 'issue-4',
  status: 'aborted',
  statusReason: 'aborted by alice',
  task: { source: 'issue', number: 4, title: 'Climb', body: 'One step.', author: 'alice' },
})
const comment = (issue: number) => ({
  action: 'created',
  comment: { body: '/loop abort', user: { login: 'alice', type: 'User' } },
  issue: { number: issue, labels: [] },
})

function stickyComments() {
  const posted: { issueNumber: number; body: string }[] = []
  return {
    posted,
    upsertStickyComment: async (input: { issueNumber: number; marker: string; body: string }) => {
      posted.push({ issueNumber: input.issueNumber, body: input.body })
      return { id: 1, created: true, url: `https://github.com/acme/demo/issues/${input.issueNumber}#c` }
    },
  }
}

describe('abortedInLineReason', () => {
  it.each([
    { reason: 'aborted by alice', want: 'aborted by alice, while queued (2 of 3 in line); it never ran' },
    {
      reason: 'aborted by bob: not needed.',
      want: 'aborted by bob: not needed, while queued (2 of 3 in line); it never ran',
    },
    { reason: '', want: 'aborted, while queued (2 of 3 in line); it never ran' },
  ])('$reason', ({ reason, want }) => {
    expect(abortedInLineReason({ statusReason: reason }, wait)).toBe(want)
  })
})

describe('reportAbortedInLine', () => {
  it.each([
    { name: "a /loop abort on the loop's issue", event: 'issue_comment', payload: comment(4), own: true },
    { name: 'a dispatch naming the loop (command: abort)', event: 'workflow_dispatch', payload: {}, own: true },
    {
      name: 'a tick on the dashboard (issue #9)',
      event: 'issues',
      payload: { action: 'edited', issue: { number: 9 } },
      own: false,
    },
  ])(
    '$name: the comment on #4 says aborted; summary and outputs only when the event is about the loop',
    async ({ event, payload, own }) => {
      const github = stickyComments()
      const io = recordingIO()
      const logger = recordingLogger()
      await reportAbortedInLine(
        run(event, payload),
        { loopId: 'issue-4', state: aborted, wait, root: '/here' },
        { github, io, logger, redact: (text) => text },
      )
      expect(github.posted.map((c) => c.issueNumber)).toEqual([4])
      expect(github.posted[0]?.body).toContain('Aborted')
      expect(github.posted[0]?.body).toContain('aborted by alice, while queued (2 of 3 in line); it never ran')
      expect(github.posted[0]?.body).not.toContain('is queued')
      // It never ran: no work is said to stay on a branch.
      expect(github.posted[0]?.body).toContain('Nothing: the loop is over before any work')
      // It never ran: no branch of its own to link.
      expect(github.posted[0]?.body).not.toContain('/tree/loop/')
      expect(io.summaries.length).toBe(own ? 1 : 0)
      if (own) expect(io.summaries[0]).toContain('aborted by alice, while queued')
      expect(io.outputs.status).toBe(own ? 'aborted' : undefined)
      expect(io.failed).toEqual([])
      expect(logger.lines.filter((line) => line.startsWith('warning'))).toEqual([])
    },
  )
})
