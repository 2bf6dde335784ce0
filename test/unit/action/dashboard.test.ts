// The action's side of the dashboard: which events are edits of it (and which edits end the job at
// once), and a rewrite that fails only warns.
import { describe, expect, it } from 'vitest'
import { isDashboardEdit, isOrdinaryIssueEdit, updateDashboard } from '../../../src/action/dashboard.js'
import { buildRunContext } from '../../../src/action/run-context.js'
import type { DashboardIssues } from '../../../src/ports/dashboard.js'
import { memoryStore, recordingLogger } from './fakes.js'

function run(eventName: string, payload: Record<string, unknown>, dashboard = 'true') {
  const inputs: Record<string, string> = { 'github-token': 'tok', dashboard }
  return buildRunContext({
    env: { GITHUB_REPOSITORY: 'acme/demo' },
    event: { eventName, payload, runId: 7 },
    getInput: (name) => inputs[name] ?? '',
    cwd: '/here',
  })
}

const issue = (labels: string[], extra: Record<string, unknown> = {}) => ({
  number: 3,
  labels: labels.map((name) => ({ name })),
  ...extra,
})

describe('isDashboardEdit', () => {
  it.each([
    {
      name: 'an edit of the labelled issue',
      event: 'issues',
      action: 'edited',
      labels: ['loop/dashboard'],
      want: true,
    },
    { name: 'the input off', event: 'issues', action: 'edited', labels: ['loop/dashboard'], off: true, want: false },
    { name: 'another issue', event: 'issues', action: 'edited', labels: ['bug'], want: false },
    { name: 'a label, not an edit', event: 'issues', action: 'labeled', labels: ['loop/dashboard'], want: false },
    { name: 'a comment on it', event: 'issue_comment', action: 'edited', labels: ['loop/dashboard'], want: false },
    {
      name: 'a pull request that carries the label',
      event: 'issues',
      action: 'edited',
      labels: ['loop/dashboard'],
      pull: true,
      want: false,
    },
  ])('$name: $want', ({ event, action, labels, off, pull, want }) => {
    const payload = { action, issue: issue(labels, pull ? { pull_request: { url: 'u' } } : {}) }
    expect(isDashboardEdit(run(event, payload, off ? 'false' : 'true'))).toBe(want)
  })
})

describe('isOrdinaryIssueEdit: the edits a job ends at once, before any config or state is read', () => {
  it.each([
    { name: 'another issue edited', event: 'issues', action: 'edited', labels: ['bug'], want: true },
    {
      name: 'the dashboard edited (a tick)',
      event: 'issues',
      action: 'edited',
      labels: ['loop/dashboard'],
      want: false,
    },
    {
      name: 'the labelled issue edited, the input off',
      event: 'issues',
      action: 'edited',
      labels: ['loop/dashboard'],
      off: true,
      want: true,
    },
    { name: 'a label (it may start a loop)', event: 'issues', action: 'labeled', labels: ['loop'], want: false },
    { name: 'a comment edited', event: 'issue_comment', action: 'edited', labels: [], want: false },
    { name: 'a dispatch', event: 'workflow_dispatch', action: undefined, labels: [], want: false },
  ])('$name: $want', ({ event, action, labels, off, want }) => {
    const payload = { action, issue: issue(labels) }
    expect(isOrdinaryIssueEdit(run(event, payload, off ? 'false' : 'true'))).toBe(want)
  })
})

describe('updateDashboard', () => {
  const failing: DashboardIssues = {
    list: async () => {
      throw new Error('GitHub refused to list the dashboard issues: 502')
    },
    create: async () => {
      throw new Error('not reached')
    },
    pin: async () => {},
    isPinned: async () => true,
    update: async () => {},
    get: async () => {
      throw new Error('not reached')
    },
    closeDuplicate: async () => {},
  }

  it('warns and never throws when GitHub fails: the loop`s job is not failed for it', async () => {
    const logger = recordingLogger()
    const store = Object.assign(memoryStore(), { readLoops: async () => [] })
    await updateDashboard(run('workflow_dispatch', {}), store, { issues: failing, logger })
    expect(logger.lines).toEqual([
      'warning: The dashboard issue was not updated (the loop is not affected): GitHub refused to list the dashboard issues: 502',
    ])
  })

  it('says a store that cannot list its loops', async () => {
    const logger = recordingLogger()
    await updateDashboard(run('workflow_dispatch', {}), memoryStore(), { issues: failing, logger })
    expect(logger.lines[0]).toMatch(/^warning: .*cannot list its loops; the dashboard needs 'git'/)
  })
})
