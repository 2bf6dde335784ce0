// "Re-run all jobs" (`engine.rerun`): a new attempt of the same run that keeps the artifacts of the
// attempts before it, where an upload under a name the run holds fails as upload-artifact v4's does.
// download-artifact without a token asks the runner's artifact service, which fails an earlier attempt's
// artifact with `(404) Not Found: workflow run not found` (actions/download-artifact#486); with
// `github-token` (and the token's `actions: read`) it goes through the REST API, where the run's
// artifacts of every attempt are listed and downloaded.
// "Re-run failed jobs" (`engine.rerun(id, 'failed')`): the failed jobs and the jobs after them run anew,
// the others keep their result and outputs ("Jobs that aren't included keep their outputs from the
// previous attempt, which the newly run jobs can use", GitHub's docs).
import { describe, expect, it } from 'vitest'
import { sandboxPerTest } from './fixtures.js'

const sandboxes = sandboxPerTest()

const RERUN = `name: rerun
on: workflow_dispatch
permissions:
  contents: read
jobs:
  make:
    runs-on: ubuntu-latest
    steps:
      - run: mkdir out && echo "attempt \${{ github.run_attempt }}" > out/a.txt
      - uses: actions/upload-artifact@v4
        with:
          name: by-attempt-\${{ github.run_attempt }}
          path: out
      - uses: actions/upload-artifact@v4
        with:
          name: same-name
          path: out
  take:
    needs: make
    if: always()
    runs-on: ubuntu-latest
    steps:
      - uses: actions/download-artifact@v4
        with:
          pattern: by-attempt-*
          path: got
      - run: cat got/*/a.txt | tr '\\n' ' ' >> "$GITHUB_STEP_SUMMARY"
  take-by-rest:
    needs: make
    if: always()
    runs-on: ubuntu-latest
    permissions:
      actions: read
    steps:
      - uses: actions/download-artifact@v4
        with:
          pattern: by-attempt-*
          path: got
          github-token: \${{ github.token }}
          run-id: \${{ github.run_id }}
      - uses: actions/download-artifact@v4
        with:
          name: by-attempt-1
          path: one
          github-token: \${{ github.token }}
      - run: cat got/*/a.txt one/a.txt | tr '\\n' ' ' >> "$GITHUB_STEP_SUMMARY"
  take-without-actions-read:
    needs: make
    runs-on: ubuntu-latest
    steps:
      - uses: actions/download-artifact@v4
        with:
          name: by-attempt-1
          github-token: \${{ github.token }}
`

describe('re-running a run', () => {
  it('runs every job again as attempt 2 of the same run, with the artifacts of attempt 1 through the REST API alone; a name the run holds is refused (409)', async () => {
    const sandbox = await sandboxes.start('rerun.yml', RERUN)
    const { runId } = await sandbox.dispatch({})
    await sandbox.waitForIdle(30_000)
    // A run in progress is not re-run; a finished one is.
    const rerun = sandbox.engine.rerun(runId)
    expect(() => sandbox.engine.rerun(runId)).toThrow(/still in progress/)
    const jobs = await sandbox.waitForIdle(30_000)
    expect(rerun.runAttempt).toBe(2)
    const byName = (attempt: number, name: string) =>
      jobs.find((job) => job.runAttempt === attempt && job.name === name)
    expect(jobs.map((job) => [job.runId, job.runAttempt, job.name, job.conclusion]).sort()).toEqual([
      [runId, 1, 'make', 'success'],
      [runId, 1, 'take', 'success'],
      [runId, 1, 'take-by-rest', 'success'],
      [runId, 1, 'take-without-actions-read', 'failure'],
      [runId, 2, 'make', 'failure'],
      [runId, 2, 'take', 'failure'],
      [runId, 2, 'take-by-rest', 'success'],
      [runId, 2, 'take-without-actions-read', 'skipped'],
    ])
    expect(byName(1, 'take')?.summary.trim()).toBe('attempt 1')
    expect(byName(1, 'take-by-rest')?.summary.trim()).toBe('attempt 1 attempt 1')
    // Attempt 2 without a token: the runner's artifact service lists attempt 1's artifact but will not serve it.
    expect(byName(2, 'take')?.stderr).toContain('(404) Not Found: workflow run not found')
    // Through the REST API the run's artifacts of both attempts are there.
    expect(byName(2, 'take-by-rest')?.summary.trim()).toBe('attempt 1 attempt 2 attempt 1')
    expect(byName(1, 'take-without-actions-read')?.stderr).toContain('Resource not accessible by integration')
    const secondMake = byName(2, 'make')
    expect(`${secondMake?.stdout}${secondMake?.stderr}${secondMake?.reason ?? ''}`).toMatch(
      /\(409\) Conflict: an artifact with this name already exists on the workflow run \('same-name'\)/,
    )
    const served = sandbox.api.exchanges
      .filter((e) => e.status < 400 && e.tokenKind === 'installation')
      .map((e) => e.operationId)
    expect(new Set(served)).toEqual(new Set(['actions/list-workflow-run-artifacts', 'actions/download-artifact']))
    expect(() => sandbox.engine.rerun(runId + 1000)).toThrow(/no run/)
    expect(sandbox.engine.problems).toEqual([])
    expect(sandbox.api.violations).toEqual([])
  })
})

const RERUN_FAILED = `name: rerun-failed
on: workflow_dispatch
permissions:
  contents: read
jobs:
  setup:
    runs-on: ubuntu-latest
    outputs:
      made: \${{ steps.make.outputs.made }}
    steps:
      - id: make
        run: echo "made=attempt-\${{ github.run_attempt }}" >> "$GITHUB_OUTPUT"
  test:
    needs: setup
    runs-on: ubuntu-latest
    strategy:
      fail-fast: false
      matrix:
        shard: [1, 2]
    steps:
      - run: test "\${{ matrix.shard }}-\${{ github.run_attempt }}" != "2-1"
  report:
    needs: [setup, test]
    runs-on: ubuntu-latest
    steps:
      - run: echo "\${{ needs.setup.outputs.made }}" >> "$GITHUB_STEP_SUMMARY"
  lint:
    runs-on: ubuntu-latest
    steps:
      - run: echo lint
`

describe('re-running the failed jobs of a run', () => {
  it('runs the failed leg and the job after it anew; the others keep their result and outputs of attempt 1', async () => {
    const sandbox = await sandboxes.start('rerun-failed.yml', RERUN_FAILED)
    const { runId } = await sandbox.dispatch({})
    await sandbox.waitForIdle(30_000)
    const attempt = (n: number) =>
      sandbox.jobs
        .filter((job) => job.runAttempt === n)
        .map((job) => [job.name, job.conclusion])
        .sort()
    expect(attempt(1)).toEqual([
      ['lint', 'success'],
      ['report', 'skipped'],
      ['setup', 'success'],
      ['test (1)', 'success'],
      ['test (2)', 'failure'],
    ])

    sandbox.engine.rerun(runId, 'failed')
    const jobs = await sandbox.waitForIdle(30_000)

    expect(attempt(2)).toEqual([
      ['lint', 'success'],
      ['report', 'success'],
      ['setup', 'success'],
      ['test (1)', 'success'],
      ['test (2)', 'success'],
    ])
    const second = jobs.filter((job) => job.runAttempt === 2)
    const ranAnew = second.filter((job) => job.startedAt !== undefined).map((job) => job.name)
    expect(ranAnew.sort()).toEqual(['report', 'test (2)'])
    const kept = second.filter((job) => job.startedAt === undefined)
    expect(kept.map((job) => job.reason)).toEqual(Array(3).fill('kept from attempt 1 ("Re-run failed jobs")'))
    // The job run anew reads the kept job's output of attempt 1.
    expect(second.find((job) => job.name === 'report')?.summary.trim()).toBe('attempt-1')
    expect(sandbox.api.model.runs.get(runId)).toMatchObject({ runAttempt: 2, conclusion: 'success' })
    expect(() => sandbox.engine.rerun(runId, 'failed')).toThrow(`sandbox: run ${runId} has no failed job to re-run`)
    expect(sandbox.engine.problems).toEqual([])
    expect(sandbox.api.violations).toEqual([])
  })

  it("keeps a called workflow's jobs one by one, and runs all of them anew when the calling job runs anew", async () => {
    const reusable = `on:
  workflow_call:
    inputs:
      fail:
        type: string
        required: true
jobs:
  first:
    runs-on: ubuntu-latest
    steps:
      - run: echo first
  second:
    needs: first
    runs-on: ubuntu-latest
    steps:
      - run: test "\${{ inputs.fail }}-\${{ github.run_attempt }}" != "yes-1"
`
    const caller = `name: caller
on: workflow_dispatch
permissions:
  contents: read
jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - run: test "\${{ github.run_attempt }}" != 1
  call-kept:
    uses: ./.github/workflows/reusable.yml
    with:
      fail: 'yes'
  call-after:
    needs: check
    uses: ./.github/workflows/reusable.yml
    with:
      fail: 'no'
`
    const sandbox = await sandboxes.start('caller.yml', caller, { workflows: { 'reusable.yml': reusable } })
    const { runId } = await sandbox.dispatch({})
    await sandbox.waitForIdle(30_000)
    sandbox.engine.rerun(runId, 'failed')
    const jobs = await sandbox.waitForIdle(30_000)

    const byAttempt = (n: number) =>
      jobs
        .filter((job) => job.runAttempt === n)
        .map((job) => [job.name, job.conclusion, job.startedAt === undefined ? 'not started' : 'started'])
        .sort()
    expect(byAttempt(1)).toEqual([
      ['call-after / first', 'skipped', 'not started'],
      ['call-after / second', 'skipped', 'not started'],
      ['call-kept / first', 'success', 'started'],
      ['call-kept / second', 'failure', 'started'],
      ['check', 'failure', 'started'],
    ])
    // call-after runs anew (check did), so its jobs skipped in attempt 1 are not kept skipped.
    expect(byAttempt(2)).toEqual([
      ['call-after / first', 'success', 'started'],
      ['call-after / second', 'success', 'started'],
      ['call-kept / first', 'success', 'not started'],
      ['call-kept / second', 'success', 'started'],
      ['check', 'success', 'started'],
    ])
    expect(sandbox.engine.problems).toEqual([])
    expect(sandbox.api.violations).toEqual([])
  })

  it('re-runs a run at most 50 times, as GitHub does', async () => {
    const once =
      'name: once\non: workflow_dispatch\npermissions: {}\njobs:\n  one:\n    runs-on: ubuntu-latest\n    steps:\n      - run: "true"\n'
    const sandbox = await sandboxes.start('once.yml', once, { maxJobs: 60 })
    const { runId } = await sandbox.dispatch({})
    await sandbox.waitForIdle(30_000)
    for (let rerun = 1; rerun <= 50; rerun++) {
      sandbox.engine.rerun(runId)
      await sandbox.waitForIdle(30_000)
    }
    expect(sandbox.jobs.at(-1)).toMatchObject({ runAttempt: 51, conclusion: 'success' })
    expect(() => sandbox.engine.rerun(runId)).toThrow(`sandbox: run ${runId} has been re-run 50 times`)
    expect(sandbox.jobs).toHaveLength(51)
  })
})
