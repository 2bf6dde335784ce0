// The action's outputs and summary are written by the runner file guard itself (so they are never read
// back from the files as the controller's): an output is what `@actions/core` would append, read back
// by the runner as the same value; a file the guard does not hold is left to `@actions/core`.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { JobEnd } from '../../../src/action/job-setup.js'
import type { RunContext } from '../../../src/action/run-context.js'
import { guardRunnerFiles } from '../../../src/action/runner-files.js'
import { parseFileCommands } from '../../sandbox/runner-files.js'
import { recordingIO, recordingLogger } from './fakes.js'

function guarded(env: Record<string, string>) {
  const unguarded = recordingIO()
  const logger = recordingLogger()
  const jobEnd: JobEnd = {}
  const { io } = guardRunnerFiles({ env } as unknown as RunContext, { io: unguarded, logger, jobEnd })
  return { io, unguarded, logger, jobEnd }
}

describe('the action’s writes to the runner file commands', () => {
  it('are written by the guard as the runner reads them, and held through the last put-back', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'loop-runner-files-unit-'))
    const env = { GITHUB_OUTPUT: join(folder, 'set_output'), GITHUB_STEP_SUMMARY: join(folder, 'step_summary') }
    for (const path of Object.values(env)) writeFileSync(path, '')
    const { io, unguarded, jobEnd } = guarded(env)

    io.setOutput('status', 'complete')
    io.setOutput('iterations', 3)
    io.setOutput('matrix', '{"include":[\n{"leg":1}]}')
    await io.writeSummary('## Loop\n')
    await io.writeSummary('done\n')

    expect(parseFileCommands(readFileSync(env.GITHUB_OUTPUT, 'utf8'), 'GITHUB_OUTPUT')).toEqual({
      status: 'complete',
      iterations: '3',
      matrix: '{"include":[\n{"leg":1}]}',
    })
    expect(readFileSync(env.GITHUB_STEP_SUMMARY, 'utf8')).toBe('## Loop\ndone\n')
    expect(unguarded.infos).toEqual(['status = complete', 'iterations = 3', 'matrix = {"include":[\n{"leg":1}]}'])
    expect(unguarded.outputs).toEqual({})
    jobEnd.runnerFiles?.()
    expect(readFileSync(env.GITHUB_STEP_SUMMARY, 'utf8')).toBe('## Loop\ndone\n')
  })

  it('go to @actions/core when the runner gave no file to hold', async () => {
    const { io, unguarded, logger } = guarded({})
    io.setOutput('status', 'complete')
    await io.writeSummary('## Loop\n')
    expect(unguarded.outputs).toEqual({ status: 'complete' })
    expect(unguarded.summaries).toEqual(['## Loop\n'])
    expect(logger.lines).toEqual([])
  })
})
