// The concurrency group of a job that calls a reusable workflow: held from the moment the calling job
// would start until the called workflow's last job ended, so runs of the same group run their called
// jobs one whole call after another; queue, cancel-in-progress and deadlocks as GitHub has them.
import { describe, expect, it } from 'vitest'
import type { JobRecord } from '../sandbox/workflow-engine.js'
import { sandboxPerTest } from './fixtures.js'

const sandboxes = sandboxPerTest()

const REUSABLE = `name: reusable
on:
  workflow_call:
    inputs:
      inner-group:
        type: string
        default: ''
jobs:
  first:
    runs-on: ubuntu-latest
    concurrency: \${{ inputs.inner-group }}
    steps:
      - run: sleep 0.4
  second:
    needs: first
    runs-on: ubuntu-latest
    steps:
      - run: sleep 0.4
`

/** A caller whose calling job holds `call-<key>` with the given extra `concurrency:` keys. */
const caller = (extra: string, innerGroup = '') => `name: caller
on:
  workflow_dispatch:
    inputs:
      key:
        type: string
        default: a
jobs:
  prepare:
    runs-on: ubuntu-latest
    outputs:
      key: \${{ steps.key.outputs.key }}
    steps:
      - id: key
        run: echo "key=\${{ inputs.key }}" >> "$GITHUB_OUTPUT"
  call:
    needs: prepare
    concurrency:
      group: call-\${{ needs.prepare.outputs.key }}
${extra}    uses: ./.github/workflows/reusable.yml
    with:
      inner-group: '${innerGroup}'
`

const start = (extra: string, innerGroup = '') =>
  sandboxes.start('caller.yml', caller(extra, innerGroup), { workflows: { 'reusable.yml': REUSABLE } })

const ended = (job: JobRecord | undefined) => (job?.startedAt ?? 0) + (job?.durationMs ?? 0)
const called = (jobs: readonly JobRecord[], runId: number, name: string) =>
  jobs.find((job) => job.runId === runId && job.name === `call / ${name}`)

/** Polls until `done` holds (the engine moves jobs on its own); fails the test past the deadline. */
async function waitFor(done: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!done()) {
    if (Date.now() > deadline) throw new Error('sandbox: the awaited state never came')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Dispatches, and waits until the run's `prepare` ended: its call has entered the group then or will at once. */
async function dispatchPrepared(key = 'a'): Promise<number> {
  const box = sandboxes.current
  const { runId } = await box.dispatch({ key })
  await waitFor(
    () => box.jobs.some((job) => job.runId === runId && job.name === 'call / first' && job.status !== 'queued'),
    20_000,
  )
  return runId
}

describe('concurrency of a job that calls a reusable workflow', () => {
  it("with queue: max runs each call's jobs after the previous call's last job ended, in order", async () => {
    const sandbox = await start('      cancel-in-progress: false\n      queue: max\n')
    const runs = [await dispatchPrepared(), await dispatchPrepared(), await dispatchPrepared()]
    // The later calls wait in the group with all their jobs, also the one whose needs are not met yet.
    expect(sandbox.jobs.filter((job) => job.runId === runs[1]).map((job) => [job.name, job.status])).toEqual([
      ['prepare', 'completed'],
      ['call / first', 'pending'],
      ['call / second', 'pending'],
    ])
    const jobs = await sandbox.waitForIdle(30_000)

    expect(jobs.map((job) => job.conclusion)).toEqual(Array(9).fill('success'))
    for (const [earlier, later] of [
      [runs[0], runs[1]],
      [runs[1], runs[2]],
    ] as [number, number][]) {
      expect(called(jobs, later, 'first')?.startedAt ?? 0).toBeGreaterThanOrEqual(
        ended(called(jobs, earlier, 'second')),
      )
    }
    expect(sandbox.engine.problems).toEqual([])
    expect(sandbox.api.violations).toEqual([])
  })

  it('with the default queue replaces the pending call by a newer one; other groups do not wait', async () => {
    const sandbox = await start('')
    const first = await dispatchPrepared()
    const replaced = await dispatchPrepared()
    const other = await dispatchPrepared('b')
    const last = await dispatchPrepared()
    expect(called(sandbox.jobs, other, 'first')?.status).toBe('running')
    const jobs = await sandbox.waitForIdle(30_000)

    for (const name of ['first', 'second']) {
      expect(called(jobs, replaced, name)?.conclusion).toBe('cancelled')
      expect(called(jobs, replaced, name)?.reason).toBe(
        "Canceling since a higher priority waiting request for 'call-a' exists",
      )
      expect(called(jobs, replaced, name)?.startedAt).toBeUndefined()
      expect(called(jobs, first, name)?.conclusion).toBe('success')
      expect(called(jobs, last, name)?.conclusion).toBe('success')
    }
    expect(called(jobs, last, 'first')?.startedAt ?? 0).toBeGreaterThanOrEqual(ended(called(jobs, first, 'second')))
    expect(sandbox.api.model.runs.get(replaced)?.conclusion).toBe('cancelled')
    expect(sandbox.engine.problems).toEqual([])
  })

  it('with cancel-in-progress stops the running call: its running job is killed, its later jobs never start', async () => {
    const sandbox = await start('      cancel-in-progress: true\n')
    const interrupted = await dispatchPrepared()
    await waitFor(() => called(sandbox.jobs, interrupted, 'first')?.status === 'running', 20_000)
    const newer = await dispatchPrepared()
    const jobs = await sandbox.waitForIdle(30_000)

    const why = "Canceling since a higher priority waiting request for 'call-a' exists"
    expect(called(jobs, interrupted, 'first')?.conclusion).toBe('cancelled')
    expect(called(jobs, interrupted, 'first')?.reason).toBe(why)
    expect(called(jobs, interrupted, 'second')?.conclusion).toBe('cancelled')
    expect(called(jobs, interrupted, 'second')?.startedAt).toBeUndefined()
    expect(called(jobs, newer, 'second')?.conclusion).toBe('success')
    expect(called(jobs, newer, 'first')?.startedAt ?? 0).toBeGreaterThanOrEqual(
      ended(called(jobs, interrupted, 'first')),
    )
    expect(sandbox.engine.problems).toEqual([])
  })

  it('fails a called job that asks for the group its calling job holds, as the deadlock it would be', async () => {
    const sandbox = await start('', 'CALL-a')
    const runId = await dispatchPrepared()
    const jobs = await sandbox.waitForIdle(30_000)

    expect(called(jobs, runId, 'first')?.conclusion).toBe('failure')
    expect(called(jobs, runId, 'second')?.conclusion).toBe('skipped')
    expect(sandbox.engine.problems).toEqual([
      `run ${runId} job 'call / first': Canceling since a deadlock for concurrency group 'CALL-a' was detected between a calling job and a job of the workflow it calls`,
    ])
  })
})
