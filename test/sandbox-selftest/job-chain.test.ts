// A chain of jobs as GitHub runs it: the status functions of a job's `if:` read every ancestor, not only
// its direct needs ("If you have a chain of dependent jobs, failure() returns true if any ancestor job
// fails"), so a failure two jobs up still skips a job without `if:` and still runs an `if: failure()` one.
// A job's outputs go down the chain, except one that holds a secret, which the runner skips with a warning.
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

  it("skips a job output that holds a secret, an ::add-mask:: value or the token, with the runner's warning", async () => {
    const sandbox = await sandboxes.start(
      'outputs.yml',
      `name: outputs
on: workflow_dispatch
jobs:
  a:
    runs-on: ubuntu-latest
    outputs:
      leak: \${{ steps.x.outputs.secret }}
      masked: \${{ steps.x.outputs.masked }}
      token: token-\${{ github.token }}
      plain: \${{ steps.x.outputs.plain }}
    steps:
      - id: x
        run: |
          echo "::add-mask::hidden-value"
          echo "secret=\${{ secrets.A }}" >> "$GITHUB_OUTPUT"
          echo "masked=hidden-value" >> "$GITHUB_OUTPUT"
          echo "plain=ok" >> "$GITHUB_OUTPUT"
  b:
    needs: a
    runs-on: ubuntu-latest
    steps:
      - run: echo "got '\${{ needs.a.outputs.leak }}' '\${{ needs.a.outputs.masked }}' '\${{ needs.a.outputs.token }}' '\${{ needs.a.outputs.plain }}'"
`,
      { secrets: { A: 'topsecret' } },
    )
    await sandbox.dispatch({})
    const [a, b] = await sandbox.waitForIdle(20_000)

    expect(a?.jobOutputs).toEqual({ plain: 'ok' })
    const skipped = ['leak', 'masked', 'token'].map((name) => `Skip output '${name}' since it may contain secret.`)
    expect(a?.annotations.map((annotation) => [annotation.level, annotation.message])).toEqual(
      skipped.map((message) => ['warning', message]),
    )
    expect(a?.stdout).toContain(skipped.map((message) => `##[warning]${message}\n`).join(''))
    expect(b?.stdout).toBe("got '' '' '' 'ok'\n")
    expect(sandbox.engine.problems).toEqual([])
  })
})
