// "Re-run all jobs" (`engine.rerun`): a new attempt of the same run that keeps the artifacts of the
// attempts before it, where an upload under a name the run holds fails as upload-artifact v4's does.
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
`

describe('re-running a run', () => {
  it('runs every job again as attempt 2 of the same run, with the artifacts of attempt 1; a name the run holds is refused (409)', async () => {
    const sandbox = await sandboxes.start('rerun.yml', RERUN)
    const { runId } = await sandbox.dispatch({})
    await sandbox.waitForIdle(30_000)
    // A run in progress is not re-run; a finished one is.
    const rerun = sandbox.engine.rerun(runId)
    expect(() => sandbox.engine.rerun(runId)).toThrow(/still in progress/)
    const jobs = await sandbox.waitForIdle(30_000)
    expect(rerun.runAttempt).toBe(2)
    expect(jobs.map((job) => [job.runId, job.runAttempt, job.name, job.conclusion])).toEqual([
      [runId, 1, 'make', 'success'],
      [runId, 1, 'take', 'success'],
      [runId, 2, 'make', 'failure'],
      [runId, 2, 'take', 'success'],
    ])
    const [, firstTake, secondMake, secondTake] = jobs
    expect(firstTake?.summary.trim()).toBe('attempt 1')
    expect(secondTake?.summary.trim()).toBe('attempt 1 attempt 2')
    expect(`${secondMake?.stdout}${secondMake?.stderr}${secondMake?.reason ?? ''}`).toMatch(
      /\(409\) Conflict: an artifact with this name already exists on the workflow run \('same-name'\)/,
    )
    expect(() => sandbox.engine.rerun(runId + 1000)).toThrow(/no run/)
    expect(() => sandbox.engine.rerun(runId, 'failed')).toThrow(
      'sandbox: "Re-run failed jobs" is not modelled (GitHub re-runs the failed jobs and the jobs that depend on them, the others keeping their outputs); the engine re-runs all jobs only',
    )
    expect(sandbox.jobs).toHaveLength(4)
    expect(sandbox.engine.problems).toEqual([])
    expect(sandbox.api.violations).toEqual([])
  })
})
