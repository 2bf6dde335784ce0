// A run cancelled by its concurrency group (`cancel-in-progress`): the running job is killed, the jobs
// that had not started are cancelled, and a job whose `if:` is `cancelled()` still runs, as on GitHub.
import { describe, expect, it } from 'vitest'
import { sandboxPerTest } from './fixtures.js'

const sandboxes = sandboxPerTest()

const WORKFLOW = `name: cancellable
on:
  workflow_dispatch:
    inputs:
      sleep:
        type: string
        default: '0'
concurrency:
  group: one-at-a-time
  cancel-in-progress: true
jobs:
  slow:
    runs-on: ubuntu-latest
    steps:
      - run: sleep \${{ inputs.sleep }}
  next:
    needs: slow
    runs-on: ubuntu-latest
    steps:
      - run: echo next
  clean-up:
    needs: slow
    if: cancelled()
    runs-on: ubuntu-latest
    steps:
      - run: echo "cleaning up after \${{ needs.slow.result }}"
`

describe('a cancelled run', () => {
  it('kills the running job, cancels the jobs waiting for it, and runs the cancelled() job', async () => {
    const sandbox = await sandboxes.start('cancellable.yml', WORKFLOW)
    const first = await sandbox.dispatch({ sleep: '20' })
    expect(sandbox.jobs.map((j) => [j.name, j.status])).toEqual([
      ['slow', 'running'],
      ['next', 'queued'],
      ['clean-up', 'queued'],
    ])
    const second = await sandbox.dispatch({})
    const jobs = await sandbox.waitForIdle(20_000)

    const why = "Canceling since a higher priority waiting request for 'one-at-a-time' exists"
    expect(jobs.map((j) => [j.runId, j.name, j.conclusion])).toEqual([
      [first.runId, 'slow', 'cancelled'],
      [first.runId, 'next', 'cancelled'],
      [first.runId, 'clean-up', 'success'],
      [second.runId, 'slow', 'success'],
      [second.runId, 'next', 'success'],
      [second.runId, 'clean-up', 'skipped'],
    ])
    expect(jobs[0]?.reason).toBe(why)
    expect(jobs[2]?.stdout).toBe('cleaning up after cancelled\n')
    // The second run started when the first had ended.
    const firstEnd = Math.max(...jobs.slice(0, 3).map((j) => (j.startedAt ?? 0) + (j.durationMs ?? 0)))
    expect(jobs[3]?.startedAt ?? 0).toBeGreaterThanOrEqual(firstEnd)
    expect(sandbox.api.model.runs.get(first.runId)?.conclusion).toBe('cancelled')
    expect(sandbox.engine.problems).toEqual([])
  })
})
