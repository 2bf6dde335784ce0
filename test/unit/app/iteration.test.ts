import { describe, expect, it } from 'vitest'
import { runOneIteration } from '../../../src/app/iteration.js'
import { fakeLoop } from './iteration-fakes.js'

describe('runOneIteration', () => {
  it('hands the current capability to the work command on a retry as on a first run', async () => {
    let unitRuns = 0
    const loop = fakeLoop(
      {
        'flake-check': { enabled: false },
        capabilities: ['login'],
        checks: [{ name: 'unit', run: 'npm test', kind: 'test' }],
      },
      // Fails in the baseline and after the first work, passes after the retry.
      (command) => (command === 'npm test' && ++unitRuns <= 2 ? { exitCode: 1, output: 'boom' } : { exitCode: 0 }),
    )
    const first = await runOneIteration(loop.input, loop.deps)
    expect(first.decision).toMatchObject({ kind: 'EXECUTE_STAGE', capability: 'login' })
    const second = await runOneIteration(loop.input, loop.deps)
    expect(second.decision).toMatchObject({ kind: 'RETRY', capability: 'login' })
    const work = loop.runner.runs.filter((run) => run.command === 'agent')
    expect(work.map((run) => run.env.LOOP_CAPABILITY)).toEqual(['login', 'login'])
  })
})
