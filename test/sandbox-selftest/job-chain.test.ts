// A chain of jobs as GitHub runs it: the status functions of a job's `if:` read every ancestor, not only
// its direct needs ("If you have a chain of dependent jobs, failure() returns true if any ancestor job
// fails"), so a failure two jobs up still skips a job without `if:` and still runs an `if: failure()` one.
import { describe, expect, it } from 'vitest'
import { sandboxPerTest } from './fixtures.js'

const sandboxes = sandboxPerTest()

const CHAIN = `name: chain
on: workflow_dispatch
permissions: {}
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: exit 1
  b:
    needs: a
    if: always()
    runs-on: ubuntu-latest
    steps:
      - run: echo "b sees a \${{ needs.a.result }}"
  c:
    needs: b
    if: failure()
    runs-on: ubuntu-latest
    steps:
      - run: echo "c handles the failure"
  d:
    needs: b
    runs-on: ubuntu-latest
    steps:
      - run: echo never
  e:
    needs: [b]
    if: success() || needs.b.result == 'success'
    runs-on: ubuntu-latest
    steps:
      - run: echo "e reads b's result itself"
`

describe('a chain of dependent jobs', () => {
  it("reads every ancestor's result in failure() and success(): c runs, d is skipped", async () => {
    const sandbox = await sandboxes.start('chain.yml', CHAIN)
    await sandbox.dispatch({})
    const jobs = await sandbox.waitForIdle(30_000)
    const byName = Object.fromEntries(jobs.map((job) => [job.name, job]))

    expect(jobs.map((job) => [job.name, job.conclusion])).toEqual([
      ['a', 'failure'],
      ['b', 'success'],
      ['c', 'success'],
      ['d', 'skipped'],
      ['e', 'success'],
    ])
    expect(byName.b?.stdout).toBe('b sees a failure\n')
    expect(byName.c?.stdout).toBe('c handles the failure\n')
    expect(byName.d?.reason).toBe('a job it needs did not succeed: a (failure, an ancestor through b)')
    expect(sandbox.engine.problems).toEqual([])
    expect(sandbox.api.violations).toEqual([])
  })
})
