// A run cancelled by its concurrency group (`cancel-in-progress`): the running job is killed, the jobs
// that had not started are cancelled (`success()` is false once the run is cancelled, as no `if:` is),
// and a job whose `if:` is `cancelled()` still runs, as on GitHub.
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
  checked:
    needs: slow
    if: success()
    runs-on: ubuntu-latest
    steps:
      - run: echo checked
  literal:
    needs: slow
    if: github.event_name != 'always()'
    runs-on: ubuntu-latest
    steps:
      - run: echo literal
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
      ['checked', 'queued'],
      ['literal', 'queued'],
      ['clean-up', 'queued'],
    ])
    const second = await sandbox.dispatch({})
    const jobs = await sandbox.waitForIdle(20_000)

    const why = "Canceling since a higher priority waiting request for 'one-at-a-time' exists"
    expect(jobs.map((j) => [j.runId, j.name, j.conclusion])).toEqual([
      [first.runId, 'slow', 'cancelled'],
      [first.runId, 'next', 'cancelled'],
      [first.runId, 'checked', 'cancelled'],
      [first.runId, 'literal', 'cancelled'],
      [first.runId, 'clean-up', 'success'],
      [second.runId, 'slow', 'success'],
      [second.runId, 'next', 'success'],
      [second.runId, 'checked', 'success'],
      [second.runId, 'literal', 'success'],
      [second.runId, 'clean-up', 'skipped'],
    ])
    expect(jobs[0]?.reason).toBe(why)
    expect(jobs[4]?.stdout).toBe('cleaning up after cancelled\n')
    // The second run started when the first had ended.
    const firstEnd = Math.max(...jobs.slice(0, 5).map((j) => (j.startedAt ?? 0) + (j.durationMs ?? 0)))
    expect(jobs[5]?.startedAt ?? 0).toBeGreaterThanOrEqual(firstEnd)
    expect(sandbox.api.model.runs.get(first.runId)?.conclusion).toBe('cancelled')
    expect(sandbox.engine.problems).toEqual([])
  })

  it('skips a job after a failed one whose if: only mentions a status function in a string, as it calls none', async () => {
    const sandbox = await sandboxes.start(
      'literal.yml',
      `name: literal
on: workflow_dispatch
jobs:
  fails:
    runs-on: ubuntu-latest
    steps:
      - run: exit 1
  after:
    needs: fails
    if: github.event_name != 'always()'
    runs-on: ubuntu-latest
    steps:
      - run: echo after
`,
    )
    await sandbox.dispatch({})
    const jobs = await sandbox.waitForIdle(20_000)

    expect(jobs.map((j) => [j.name, j.conclusion, j.reason])).toEqual([
      ['fails', 'failure', undefined],
      ['after', 'skipped', "the job's condition is false: github.event_name != 'always()'"],
    ])
  })

  it('cancels a waiting matrix leg whose if: is success() once the run is cancelled', async () => {
    const sandbox = await sandboxes.start(
      'legs.yml',
      `name: legs
on:
  workflow_dispatch:
    inputs:
      sleep:
        type: string
        default: '0'
concurrency:
  group: legs
  cancel-in-progress: true
jobs:
  leg:
    if: success()
    runs-on: ubuntu-latest
    strategy:
      max-parallel: 1
      fail-fast: false
      matrix:
        n: [1, 2]
    steps:
      - run: sleep \${{ matrix.n == 1 && inputs.sleep || 0 }}; echo leg \${{ matrix.n }} ran
`,
    )
    const first = await sandbox.dispatch({ sleep: '20' })
    await sandbox.dispatch({})
    const jobs = await sandbox.waitForIdle(30_000)

    expect(jobs.filter((j) => j.runId === first.runId).map((j) => [j.name, j.conclusion, j.stdout])).toEqual([
      ['leg (1)', 'cancelled', ''],
      ['leg (2)', 'cancelled', ''],
    ])
    expect(sandbox.engine.problems).toEqual([])
  })
})
