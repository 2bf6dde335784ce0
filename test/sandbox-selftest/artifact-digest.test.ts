// download-artifact checks each artifact it downloads against the digest GitHub lists for it. Since v8
// a mismatch fails the step (`digest-mismatch` defaults to `error`); v4 to v7 log a warning and keep the
// files. The sandbox models both, so a workflow pinned to v8 is held to what v8 does on GitHub.
import { describe, expect, it } from 'vitest'
import { sandboxPerTest } from './fixtures.js'

const sandboxes = sandboxPerTest()

const DIGEST = `name: digest
on:
  workflow_dispatch:
    inputs:
      from-run: { type: string, default: '' }
permissions:
  contents: read
  actions: read
jobs:
  make:
    if: inputs.from-run == ''
    runs-on: ubuntu-latest
    steps:
      - run: mkdir out && echo "the plan" > out/plan.txt
      - uses: actions/upload-artifact@v7
        with:
          name: plan
          path: out
  take-v7:
    if: inputs.from-run != ''
    runs-on: ubuntu-latest
    steps:
      - uses: actions/download-artifact@v7
        with:
          name: plan
          path: got
          github-token: \${{ github.token }}
          run-id: \${{ inputs.from-run }}
      - run: cat got/plan.txt >> "$GITHUB_STEP_SUMMARY"
  take-v8:
    if: inputs.from-run != ''
    runs-on: ubuntu-latest
    steps:
      - uses: actions/download-artifact@v8
        with:
          name: plan
          path: got
          github-token: \${{ github.token }}
          run-id: \${{ inputs.from-run }}
      - run: cat got/plan.txt >> "$GITHUB_STEP_SUMMARY"
`

describe('download-artifact and the artifact digest', () => {
  it('downloads an intact artifact with v7 and v8 alike', async () => {
    const sandbox = await sandboxes.start('digest.yml', DIGEST)
    const { runId } = await sandbox.dispatch({})
    await sandbox.waitForIdle(30_000)
    const second = await sandbox.dispatch({ 'from-run': String(runId) })
    const jobs = await sandbox.waitForIdle(30_000)
    const taken = jobs.filter((job) => job.runId === second.runId && job.name.startsWith('take-'))
    expect(taken.map((job) => [job.name, job.conclusion, job.summary.trim()]).sort()).toEqual([
      ['take-v7', 'success', 'the plan'],
      ['take-v8', 'success', 'the plan'],
    ])
    expect(taken.map((job) => job.stdout).join('')).not.toContain('Digest validation failed')
    expect(sandbox.engine.problems).toEqual([])
    expect(sandbox.api.violations).toEqual([])
  })

  it('fails v8 on a blob that does not match its digest; v7 warns and keeps the files', async () => {
    const sandbox = await sandboxes.start('digest.yml', DIGEST)
    const { runId } = await sandbox.dispatch({})
    await sandbox.waitForIdle(30_000)
    expect(sandbox.results.breakArtifactDigests('plan')).toBe(1)
    const second = await sandbox.dispatch({ 'from-run': String(runId) })
    const jobs = await sandbox.waitForIdle(30_000)
    const job = (name: string) => jobs.find((j) => j.runId === second.runId && j.name === name)
    expect(job('take-v8')?.conclusion).toBe('failure')
    expect(job('take-v8')?.stderr).toContain('Digest validation failed for artifact(s): plan')
    expect(job('take-v7')?.conclusion).toBe('success')
    expect(job('take-v7')?.stdout).toContain("Digest validation failed for artifact 'plan'")
    expect(job('take-v7')?.summary.trim()).toBe('the plan')
    expect(sandbox.engine.problems).toEqual([])
    expect(sandbox.api.violations).toEqual([])
  })
})
