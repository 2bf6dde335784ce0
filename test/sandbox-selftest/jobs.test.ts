// The engine runs a workflow as jobs: needs, job outputs, a matrix from a job's output, `if:` on
// results, artifacts between the jobs of a run, jobs of a run in parallel; and it refuses what it does
// not run. The shape is issue 14's fan-out: a plan job, a verify job per check, a decide job.
import { afterEach, describe, expect, it } from 'vitest'
import { type Sandbox, startSandbox } from '../sandbox/sandbox.js'
import type { JobRecord } from '../sandbox/workflow-engine.js'
import { parseWorkflow } from '../sandbox/workflow-file.js'
import { REPO_FILES, TEST_ACTION_DIR } from './fixtures.js'

let sandbox: Sandbox | undefined
afterEach(async () => {
  await sandbox?.stop()
  sandbox = undefined
})

const FAN_OUT = `name: fan-out
on:
  workflow_dispatch:
    inputs:
      fail:
        type: string
        default: ''
      fail-fast:
        type: boolean
        default: false
      max-parallel:
        type: string
        default: '2'
permissions:
  contents: read
env:
  LEVEL: workflow
jobs:
  plan:
    runs-on: ubuntu-latest
    outputs:
      checks: \${{ steps.list.outputs.checks }}
    steps:
      - uses: actions/checkout@v4
      - id: list
        run: echo 'checks=["lint","unit","e2e"]' >> "$GITHUB_OUTPUT"
  verify:
    needs: plan
    runs-on: ubuntu-latest
    strategy:
      fail-fast: \${{ inputs.fail-fast }}
      max-parallel: \${{ fromJSON(inputs.max-parallel) }}
      matrix:
        check: \${{ fromJSON(needs.plan.outputs.checks) }}
        include:
          - check: unit
            shard: 2
    steps:
      - uses: actions/setup-node@v4
        with:
          node-version: 20
      - name: run the check
        env:
          CHECK: \${{ matrix.check }}
        run: |
          mkdir -p out
          sleep 0.4
          echo "$CHECK at $LEVEL" > "out/$CHECK.txt"
          if [ "$CHECK" = "\${{ inputs.fail }}" ]; then echo "$CHECK failed"; exit 3; fi
      - uses: actions/upload-artifact@v4
        with:
          name: result-\${{ matrix.check }}
          path: out
  decide:
    needs: [plan, verify]
    if: always()
    runs-on: ubuntu-latest
    outputs:
      verdict: \${{ steps.verdict.outputs.verdict }}
    steps:
      - uses: actions/download-artifact@v4
        with:
          pattern: result-*
          merge-multiple: true
          path: results
      - id: verdict
        working-directory: results
        env:
          VERIFY: \${{ needs.verify.result }}
        run: |
          echo "LISTED=$(ls | tr '\\n' ' ')" >> "$GITHUB_ENV"
          echo "verdict=$VERIFY" >> "$GITHUB_OUTPUT"
      - name: summary
        run: echo "files $LISTED; e2e says $(cat results/e2e.txt)" >> "$GITHUB_STEP_SUMMARY"
  on-failure:
    needs: verify
    if: failure()
    runs-on: ubuntu-latest
    steps:
      - run: echo handled
  after-verify:
    needs: verify
    runs-on: ubuntu-latest
    steps:
      - run: echo "\${{ needs.verify.result }}"
`

const start = (files: Record<string, string>, file: string) =>
  startSandbox({ actionDir: TEST_ACTION_DIR, repoFiles: { ...REPO_FILES, ...files }, workflow: { file } })

const byName = (jobs: readonly JobRecord[]) => Object.fromEntries(jobs.map((job) => [job.name, job]))

/** The most legs that ran at the same time. */
function mostAtOnce(jobs: readonly JobRecord[]): number {
  const edges = jobs.flatMap((j) => [
    [j.startedAt ?? 0, 1],
    [(j.startedAt ?? 0) + (j.durationMs ?? 0), -1],
  ])
  edges.sort((a, b) => (a[0] as number) - (b[0] as number) || (a[1] as number) - (b[1] as number))
  let now = 0
  let most = 0
  for (const [, delta] of edges) {
    now += delta as number
    most = Math.max(most, now)
  }
  return most
}

describe('a workflow as jobs', () => {
  it('runs plan, a verify leg per check from its output (in parallel, max-parallel 2), then decide with their artifacts', async () => {
    sandbox = await start({ '.github/workflows/fan-out.yml': FAN_OUT }, 'fan-out.yml')
    const { runId } = await sandbox.dispatch({})
    const jobs = await sandbox.waitForIdle(30_000)
    const named = byName(jobs)

    expect(jobs.map((j) => [j.name, j.conclusion])).toEqual([
      ['plan', 'success'],
      ['decide', 'success'],
      ['on-failure', 'skipped'],
      ['after-verify', 'success'],
      ['verify (lint)', 'success'],
      ['verify (unit, 2)', 'success'],
      ['verify (e2e)', 'success'],
    ])
    expect(new Set(jobs.map((j) => j.runId))).toEqual(new Set([runId]))
    expect(named.plan?.jobOutputs).toEqual({ checks: '["lint","unit","e2e"]' })
    expect(named['verify (unit, 2)']?.matrix).toEqual({ check: 'unit', shard: 2 })
    expect(named['verify (lint)']?.env.GITHUB_JOB).toBe('verify')
    // The workflow's permissions on every job's token; setup-node says it does nothing.
    expect(jobs.every((j) => j.conclusion === 'skipped' || j.permissions.contents === 'read')).toBe(true)
    expect(named['verify (e2e)']?.stdout).toContain('actions/setup-node@v4 is a no-op here')
    // The legs ran in parallel, never more than two at once; decide started after the last.
    const legs = jobs.filter((j) => j.jobId === 'verify')
    expect(mostAtOnce(legs)).toBe(2)
    const lastLegEnd = Math.max(...legs.map((j) => (j.startedAt ?? 0) + (j.durationMs ?? 0)))
    expect(named.decide?.startedAt ?? 0).toBeGreaterThanOrEqual(lastLegEnd)
    expect(named.decide?.jobOutputs).toEqual({ verdict: 'success' })
    expect(named.decide?.summary).toBe('files e2e.txt lint.txt unit.txt ; e2e says e2e at workflow\n')
    expect(named['after-verify']?.stdout).toBe('success\n')
    expect(sandbox.api.model.runs.get(runId)?.conclusion).toBe('success')
    expect(sandbox.engine.problems).toEqual([])
    expect(sandbox.api.violations).toEqual([])
  })

  it('runs failure() and always() jobs after a failed leg, skips the jobs that needed it, and fails the run', async () => {
    sandbox = await start({ '.github/workflows/fan-out.yml': FAN_OUT }, 'fan-out.yml')
    const { runId } = await sandbox.dispatch({ fail: 'unit' })
    const named = byName(await sandbox.waitForIdle(30_000))

    expect(named['verify (unit, 2)']).toMatchObject({ conclusion: 'failure', exitCode: 3 })
    expect(named['verify (unit, 2)']?.steps.map((s) => s.outcome)).toEqual(['success', 'failure', 'skipped'])
    // fail-fast is off: the other legs ran to the end.
    expect(named['verify (lint)']?.conclusion).toBe('success')
    expect(named['verify (e2e)']?.conclusion).toBe('success')
    expect(named.decide?.jobOutputs).toEqual({ verdict: 'failure' })
    expect(named.decide?.summary).toContain('files e2e.txt lint.txt ;')
    expect(named['on-failure']?.conclusion).toBe('success')
    expect(named['after-verify']).toMatchObject({
      conclusion: 'skipped',
      reason: 'a job it needs did not succeed: verify (failure)',
      workspace: '',
    })
    expect(sandbox.api.model.runs.get(runId)?.conclusion).toBe('failure')
    expect(sandbox.engine.problems).toEqual([])
  })

  it('skips a matrix job on its if: before its matrix is read (an empty output is no error)', async () => {
    const workflow = `name: skip-matrix
on: workflow_dispatch
permissions: {}
jobs:
  plan:
    runs-on: ubuntu-latest
    outputs:
      matrix: \${{ steps.none.outputs.matrix }}
    steps:
      - id: none
        run: echo "nothing to verify"
  verify:
    needs: plan
    if: needs.plan.outputs.matrix != ''
    runs-on: ubuntu-latest
    strategy:
      matrix: \${{ fromJSON(needs.plan.outputs.matrix) }}
    steps:
      - run: echo "\${{ matrix.leg }}"
`
    sandbox = await start({ '.github/workflows/skip-matrix.yml': workflow }, 'skip-matrix.yml')
    await sandbox.dispatch({})
    const jobs = await sandbox.waitForIdle(30_000)
    expect(jobs.map((job) => [job.name, job.conclusion])).toEqual([
      ['plan', 'success'],
      ['verify', 'skipped'],
    ])
    expect(byName(jobs).verify?.reason).toBe("the job's condition is false: needs.plan.outputs.matrix != ''")
    expect(sandbox.engine.problems).toEqual([])
  })

  it('cancels the legs still waiting when one fails with fail-fast', async () => {
    sandbox = await start({ '.github/workflows/fan-out.yml': FAN_OUT }, 'fan-out.yml')
    await sandbox.dispatch({ fail: 'lint', 'fail-fast': 'true', 'max-parallel': '1' })
    const named = byName(await sandbox.waitForIdle(30_000))

    expect(named['verify (lint)']?.conclusion).toBe('failure')
    for (const leg of ['verify (unit, 2)', 'verify (e2e)']) {
      expect(named[leg]).toMatchObject({
        conclusion: 'cancelled',
        reason: 'The strategy configuration was canceled because "verify.0" failed',
        startedAt: undefined,
      })
    }
    // decide (always()) still ran; no leg uploaded anything for it to read.
    expect(named.decide?.steps[0]).toEqual({ id: '__step1', outcome: 'success' })
    expect(named.decide?.stdout).toContain('0 artifact(s) downloaded')
  })

  it('refuses loudly what it does not run: another action fails its job and names it', async () => {
    const workflow = `name: other
on: workflow_dispatch
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - run: echo before
      - uses: actions/cache@v4
        with:
          path: x
          key: y
      - run: echo never
`
    sandbox = await start({ '.github/workflows/other.yml': workflow }, 'other.yml')
    await sandbox.dispatch({})
    const [job] = await sandbox.waitForIdle(20_000)
    expect(job?.conclusion).toBe('failure')
    expect(job?.steps.map((s) => s.outcome)).toEqual(['success', 'failure', 'skipped'])
    expect(sandbox.engine.problems).toEqual([
      `run ${job?.runId} job 'build': the workflow engine does not run uses: actions/cache@v4 (step 'actions/cache@v4')`,
    ])
  })

  it('refuses a workflow whose needs name no job or go round, and keys it would ignore', () => {
    const jobs = (body: string) => `on: workflow_dispatch\njobs:\n${body}`
    const step = '    runs-on: ubuntu-latest\n    steps:\n      - run: echo\n'
    expect(() => parseWorkflow('a.yml', jobs(`  a:\n    needs: nope\n${step}`))).toThrow(
      "sandbox: a.yml: job 'a' needs 'nope', which is not a job of the workflow",
    )
    expect(() =>
      parseWorkflow('b.yml', jobs(`  a:\n    needs: c\n${step}  b:\n    needs: a\n${step}  c:\n    needs: b\n${step}`)),
    ).toThrow("sandbox: b.yml: the jobs' needs form a cycle: a -> c -> b -> a")
    expect(() => parseWorkflow('c.yml', jobs(`  a:\n    services:\n      db: {}\n${step}`))).toThrow(
      "sandbox: c.yml: job 'a': the workflow engine does not run 'services'",
    )
    expect(() => parseWorkflow('d.yml', jobs(`  a:\n${step}        shell: pwsh\n`))).toThrow(
      "only 'shell: bash' runs here",
    )
  })
})
