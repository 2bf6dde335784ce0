// What the engine decides while a run goes, as GitHub does: `cancel-in-progress` as an expression, read
// when a run enters its group; upload-artifact leaving hidden files out unless `include-hidden-files`.
import { describe, expect, it } from 'vitest'
import { sandboxPerTest } from './fixtures.js'

const sandboxes = sandboxPerTest()

const CANCELLABLE = `name: cancel-when-asked
on:
  workflow_dispatch:
    inputs:
      sleep:
        type: string
        default: '0'
      cancel:
        type: string
        default: 'no'
concurrency:
  group: deploy
  cancel-in-progress: \${{ inputs.cancel == 'yes' }}
jobs:
  deploy:
    runs-on: ubuntu-latest
    steps:
      - run: sleep \${{ inputs.sleep }}
`

describe('cancel-in-progress as an expression', () => {
  it('is evaluated per run: false waits behind the running run, true cancels it', async () => {
    const sandbox = await sandboxes.start('cancel.yml', CANCELLABLE)
    const first = await sandbox.dispatch({ sleep: '20' })
    const second = await sandbox.dispatch({})
    expect(sandbox.jobs.map((job) => [job.runId, job.status])).toEqual([
      [first.runId, 'running'],
      [second.runId, 'pending'],
    ])
    const third = await sandbox.dispatch({ cancel: 'yes' })
    const jobs = await sandbox.waitForIdle(20_000)

    const why = "Canceling since a higher priority waiting request for 'deploy' exists"
    expect(jobs.map((job) => [job.runId, job.conclusion, job.reason])).toEqual([
      [first.runId, 'cancelled', why],
      [second.runId, 'cancelled', why],
      [third.runId, 'success', undefined],
    ])
    expect(sandbox.engine.problems).toEqual([])
  })

  it('refuses a value that is not a boolean, and fails the run', async () => {
    const sandbox = await sandboxes.start('cancel.yml', CANCELLABLE.replace("inputs.cancel == 'yes'", 'inputs.cancel'))
    const { runId } = await sandbox.dispatch({ cancel: 'yes' })
    const [job] = await sandbox.waitForIdle(20_000)
    const message = `run ${runId}: concurrency.cancel-in-progress must be true or false; '\${{ inputs.cancel }}' gave "yes"`
    expect(job).toMatchObject({ conclusion: 'failure', reason: message })
    expect(sandbox.engine.problems).toEqual([message])
  })
})

describe('timeout-minutes as an expression', () => {
  it('fails the job when it gives no number, instead of falling back to a default', async () => {
    const workflow = `name: timeout
on:
  workflow_dispatch:
    inputs:
      minutes:
        type: string
        default: 'soon'
jobs:
  build:
    runs-on: ubuntu-latest
    timeout-minutes: \${{ inputs.minutes }}
    steps:
      - run: echo never
  after:
    needs: build
    if: always()
    runs-on: ubuntu-latest
    timeout-minutes: \${{ fromJSON('2') }}
    steps:
      - run: echo "after \${{ needs.build.result }}"
`
    const sandbox = await sandboxes.start('timeout.yml', workflow)
    const { runId } = await sandbox.dispatch({})
    const [build, after] = await sandbox.waitForIdle(20_000)
    const message = `run ${runId} job 'build': timeout-minutes must be a positive number; '\${{ inputs.minutes }}' gave NaN`
    expect(build).toMatchObject({ conclusion: 'failure', reason: message, stdout: '' })
    expect(after).toMatchObject({ conclusion: 'success', stdout: 'after failure\n' })
    expect(sandbox.engine.problems).toEqual([message])
  })
})

const ARTIFACTS = `name: hidden-files
on: workflow_dispatch
permissions: {}
jobs:
  make:
    runs-on: ubuntu-latest
    steps:
      - run: |
          mkdir -p out/.cache out/docs
          echo shown > out/visible.txt
          echo secret > out/.env
          echo cached > out/.cache/blob
          echo doc > out/docs/readme.md
          echo rc > .tagrc
      - uses: actions/upload-artifact@v7
        with:
          name: default
          path: out
      - uses: actions/upload-artifact@v7
        with:
          name: with-hidden
          path: out
          include-hidden-files: true
      - id: dotfile
        uses: actions/upload-artifact@v7
        continue-on-error: true
        with:
          name: dotfile
          path: .tagrc
          if-no-files-found: error
  read:
    needs: make
    runs-on: ubuntu-latest
    steps:
      - uses: actions/download-artifact@v8
        with:
          path: got
      - run: find got -type f | sort
`

describe('upload-artifact and hidden files', () => {
  it('leaves out files and folders starting with a dot unless include-hidden-files is true', async () => {
    const sandbox = await sandboxes.start('hidden.yml', ARTIFACTS)
    await sandbox.dispatch({})
    const [make, read] = await sandbox.waitForIdle(20_000)

    expect(make?.conclusion).toBe('success')
    expect(make?.steps.map((step) => [step.id, step.outcome])).toEqual([
      ['__step1', 'success'],
      ['__step2', 'success'],
      ['__step3', 'success'],
      ['dotfile', 'failure'],
    ])
    expect(make?.stderr).toContain('No files were found with the provided path: .tagrc')
    expect(read?.stdout.split('\n').filter((line) => line.startsWith('got/'))).toEqual([
      'got/default/docs/readme.md',
      'got/default/visible.txt',
      'got/with-hidden/.cache/blob',
      'got/with-hidden/.env',
      'got/with-hidden/docs/readme.md',
      'got/with-hidden/visible.txt',
    ])
    expect(sandbox.engine.problems).toEqual([])
  })
})
