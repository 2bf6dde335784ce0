// The flake check runs only where a flake is possible, and re-runs only the failing tests when the
// runner can select them.
import { describe, expect, it } from 'vitest'
import { runOneIteration } from '../../../src/app/iteration.js'
import { fakeLoop, fixture } from './iteration-fakes.js'

const TYPE_ERROR = fixture('type-error/tsc.txt')
const LINT = fixture('lint-error/eslint.txt')
const VITEST_FAIL = ` FAIL  test/math.test.ts > sum > adds
AssertionError: expected 3 to be 4
 Test Files  1 failed (1)
`

describe('the flake check', () => {
  it('never re-runs a typecheck or a lint on unchanged files', async () => {
    const loop = fakeLoop(
      {
        checks: [
          { name: 'types', run: 'tsc --noEmit', kind: 'typecheck' },
          { name: 'lint', run: 'eslint .', kind: 'lint' },
        ],
      },
      (command) =>
        command === 'tsc --noEmit'
          ? { exitCode: 1, output: TYPE_ERROR }
          : command === 'eslint .'
            ? { exitCode: 1, output: LINT }
            : { exitCode: 0 },
    )
    await runOneIteration(loop.input, loop.deps)
    const reruns = loop.runner.runs.filter((run) => run.logFile?.includes('.rerun-'))
    expect(reruns).toEqual([])
  })

  it('re-runs a test check whose runner it does not know whole, and records it', async () => {
    let runs = 0
    const loop = fakeLoop({ checks: [{ name: 'unit', run: 'npm test', kind: 'test' }] }, (command) =>
      command === 'npm test' && ++runs === 2 ? { exitCode: 1, output: 'not ok 1 - adds' } : { exitCode: 0 },
    )
    const result = await runOneIteration(loop.input, loop.deps)
    expect(result.outcome).toBe('complete')
    expect(
      loop.runner.runs.filter((run) => run.logFile?.endsWith('unit.rerun-1.log')).map((run) => run.command),
    ).toEqual(['npm test'])
    const flake = loop.audit.journey.find((e) => e.type === 'check' && e.message.includes('flake check'))
    expect(flake?.message).toMatch(/unit: flake check: re-running the whole check/)
    expect(flake?.data).toMatchObject({ scope: 'check' })
  })

  it('re-runs only the failing vitest tests, and a pass is flaky', async () => {
    let runs = 0
    const narrowed = "npx vitest run -t 'sum adds'"
    const loop = fakeLoop({ checks: [{ name: 'unit', run: 'npx vitest run', kind: 'test' }] }, (command) => {
      if (command === narrowed) return { exitCode: 0 }
      return command === 'npx vitest run' && ++runs === 2 ? { exitCode: 1, output: VITEST_FAIL } : { exitCode: 0 }
    })
    const result = await runOneIteration(loop.input, loop.deps)
    expect(result.outcome).toBe('complete')
    expect(result.checks[0]?.verdict).toBe('flaky')
    expect(loop.runner.runs.filter((run) => run.logFile?.includes('.rerun-')).map((run) => run.command)).toEqual([
      narrowed,
    ])
    const flake = loop.audit.journey.find((e) => e.type === 'check' && e.message.includes('flake check'))
    expect(flake?.message).toBe('unit: flake check: re-running only the 1 failing test (vitest)')
    expect(flake?.data).toMatchObject({ scope: 'tests', runner: 'vitest', tests: ['sum adds'], command: narrowed })
    // Told once, by the step that re-ran it.
    expect(loop.audit.journey.filter((e) => e.type === 'flaky')).toHaveLength(1)
  })

  it('re-runs a lint whose failure is network-class', async () => {
    let runs = 0
    const loop = fakeLoop({ checks: [{ name: 'lint', run: 'eslint .', kind: 'lint' }] }, (command) =>
      command === 'eslint .' && ++runs === 2
        ? { exitCode: 1, output: 'Error: getaddrinfo ENOTFOUND registry.npmjs.org' }
        : { exitCode: 0 },
    )
    const result = await runOneIteration(loop.input, loop.deps)
    expect(result.checks[0]?.verdict).toBe('flaky')
  })
})
