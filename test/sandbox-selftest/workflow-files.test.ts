// Several workflow files in one sandbox, as GitHub has them: each with its own id, dispatches, `on:`
// and run numbers, and each run reading its file as it is at the run's commit.
import { describe, expect, it } from 'vitest'
import type { Sandbox } from '../sandbox/sandbox.js'
import { sandboxPerTest } from './fixtures.js'

const sandboxes = sandboxPerTest()

/** A workflow of one `run:` job that says which file it is and what `word` it holds. */
const sayer = (name: string, on: string, word: string) => `name: ${name}
on:
${on}
permissions: {}
jobs:
  say:
    runs-on: ubuntu-latest
    steps:
      - id: said
        run: echo "word=${word}" >> "$GITHUB_OUTPUT"
`
const MAIN = sayer('main', '  workflow_dispatch:\n  issue_comment:\n    types: [created]', 'main')
const SWEEP = sayer('sweep', "  workflow_dispatch:\n  schedule:\n    - cron: '*/15 * * * *'", 'first')

/** `POST .../actions/workflows/{workflowId}/dispatches` as the owner: the status. */
async function dispatchTo(sandbox: Sandbox, workflowId: string, ref = 'main'): Promise<number> {
  const response = await fetch(`${sandbox.api.url}/repos/acme/demo/actions/workflows/${workflowId}/dispatches`, {
    method: 'POST',
    headers: { authorization: `token ${sandbox.tokenOf('acme')}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ref }),
  })
  await response.text()
  return response.status
}

/** Each run as the API lists it: its workflow file, number and what its job said. */
function runs(sandbox: Sandbox): [string, number, string, string | undefined][] {
  return [...sandbox.api.model.runs.values()].map((run) => [
    run.workflowPath,
    run.runNumber,
    run.event,
    sandbox.jobs.find((job) => job.runId === run.id)?.outputs.word,
  ])
}

describe('several workflow files', () => {
  it('routes dispatches by file name or id, events by each file`s on:, a schedule to the file it names', async () => {
    const sandbox = await sandboxes.start('main.yml', MAIN, {
      workflows: { 'sweep.yml': SWEEP },
      alsoRun: ['sweep.yml'],
      users: { alice: 'write' },
    })
    const sweepId = String(sandbox.engine.workflows.idOf('sweep.yml'))
    expect(await dispatchTo(sandbox, 'sweep.yml')).toBe(204)
    expect(await dispatchTo(sandbox, sweepId)).toBe(204)
    expect(await dispatchTo(sandbox, 'main.yml')).toBe(204)
    expect(await dispatchTo(sandbox, 'nope.yml')).toBe(404)
    await sandbox.waitForIdle(20_000)
    // A schedule names its file: the other file is not started, though it has no schedule anyway.
    const owner = sandbox.api.model.user('acme')
    sandbox.engine.trigger('schedule', { schedule: '*/15 * * * *', workflow: '.github/workflows/sweep.yml' }, owner)
    // Only main.yml listens to issue_comment.
    const issue = await sandbox.openIssue('alice', 'Hello', 'body')
    await sandbox.comment('alice', 'hi', issue.number)
    await sandbox.waitForIdle(20_000)

    expect(runs(sandbox)).toEqual([
      ['.github/workflows/sweep.yml', 1, 'workflow_dispatch', 'first'],
      ['.github/workflows/sweep.yml', 2, 'workflow_dispatch', 'first'],
      ['.github/workflows/main.yml', 1, 'workflow_dispatch', 'main'],
      ['.github/workflows/sweep.yml', 3, 'schedule', 'first'],
      ['.github/workflows/main.yml', 2, 'issue_comment', 'main'],
    ])
    const listed = [...sandbox.api.model.runs.values()].map((run) => [run.workflowId, run.workflowName])
    expect(listed.map(([id]) => String(id))).toEqual([
      sweepId,
      sweepId,
      expect.any(String),
      sweepId,
      expect.any(String),
    ])
    expect(listed.map(([, name]) => name)).toEqual(['sweep', 'sweep', 'main', 'sweep', 'main'])
    expect(sandbox.jobs.map((job) => job.env.GITHUB_WORKFLOW_REF)).toEqual([
      'acme/demo/.github/workflows/sweep.yml@refs/heads/main',
      'acme/demo/.github/workflows/sweep.yml@refs/heads/main',
      'acme/demo/.github/workflows/main.yml@refs/heads/main',
      'acme/demo/.github/workflows/sweep.yml@refs/heads/main',
      'acme/demo/.github/workflows/main.yml@refs/heads/main',
    ])
    expect(sandbox.api.violations).toEqual([])
    expect(sandbox.engine.problems).toEqual([])
  })

  it('reads each run`s workflow at the run`s commit: a branch`s version, a file added later, one that lost its trigger', async () => {
    const sandbox = await sandboxes.start('main.yml', MAIN, {
      workflows: { 'sweep.yml': SWEEP },
      alsoRun: ['sweep.yml'],
    })
    await sandbox.git.commit('other', { '.github/workflows/sweep.yml': SWEEP.replace('word=first', 'word=other') }, 'c')
    // A file the sandbox was not told of is still dispatched, and scheduled, as GitHub runs any workflow file.
    const late = sayer('late', "  workflow_dispatch:\n  schedule:\n    - cron: '0 3 * * *'", 'late')
    await sandbox.git.commit('main', { '.github/workflows/late.yml': late }, 'c')
    expect(await dispatchTo(sandbox, 'sweep.yml', 'other')).toBe(204)
    expect(await dispatchTo(sandbox, 'sweep.yml', 'main')).toBe(204)
    expect(await dispatchTo(sandbox, 'late.yml')).toBe(204)
    const owner = sandbox.api.model.user('acme')
    const cron = { schedule: '0 3 * * *', workflow: '.github/workflows/late.yml' }
    expect(sandbox.engine.trigger('schedule', cron, owner)?.event).toBe('schedule')
    // A schedule naming no file of the repository starts nothing.
    expect(
      sandbox.engine.trigger('schedule', { ...cron, workflow: '.github/workflows/gone.yml' }, owner),
    ).toBeUndefined()
    await sandbox.waitForIdle(20_000)
    expect(runs(sandbox)).toEqual([
      ['.github/workflows/sweep.yml', 1, 'workflow_dispatch', 'other'],
      ['.github/workflows/sweep.yml', 2, 'workflow_dispatch', 'first'],
      ['.github/workflows/late.yml', 1, 'workflow_dispatch', 'late'],
      ['.github/workflows/late.yml', 2, 'schedule', 'late'],
    ])
    // The file at the dispatched ref decides: without workflow_dispatch there, GitHub refuses the dispatch.
    const scheduleOnly = SWEEP.replace('  workflow_dispatch:\n', '')
    await sandbox.git.commit('other', { '.github/workflows/sweep.yml': scheduleOnly }, 'c')
    expect(await dispatchTo(sandbox, 'sweep.yml', 'other')).toBe(422)
    expect(sandbox.api.violations).toEqual([])
    expect(sandbox.engine.problems).toEqual([])
  })
})
