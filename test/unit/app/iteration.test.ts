import { describe, expect, it } from 'vitest'
import { runOneIteration } from '../../../src/app/iteration.js'
import { fakeLoop, fixture } from './iteration-fakes.js'

const MISSING_MODULE = fixture('import-not-found/node-esm.txt')
const UNFORMATTED = fixture('format-error/prettier.txt')
const LINT = fixture('lint-error/eslint.txt')

describe('runOneIteration', () => {
  it('runs the install command once in an iteration whose retry strategy is dependency_check', async () => {
    const loop = fakeLoop(
      {
        install: 'npm ci',
        'flake-check': { enabled: false },
        checks: [{ name: 'unit', run: 'npm test', kind: 'test' }],
      },
      (command) => (command === 'npm test' ? { exitCode: 1, output: MISSING_MODULE } : { exitCode: 0 }),
    )
    const first = await runOneIteration(loop.input, loop.deps)
    expect(first.decision.kind).toBe('EXECUTE_STAGE')
    expect(first.next).toMatchObject({ kind: 'RETRY', strategy: 'dependency_check' })
    expect(loop.runner.count('npm ci', 1)).toBe(1)

    const second = await runOneIteration(loop.input, loop.deps)
    expect(second.decision).toMatchObject({ kind: 'RETRY', strategy: 'dependency_check' })
    // The act step installed and the matrix ran after it: installing again cannot change the verdict.
    expect(loop.runner.count('npm ci', 2)).toBe(1)
    expect(loop.runner.count('agent', 2)).toBe(0)
  })

  it("runs a check's fix command once in an iteration whose retry strategy is auto_fix", async () => {
    const loop = fakeLoop(
      {
        'flake-check': { enabled: false },
        checks: [{ name: 'format', run: 'npm run format:check', kind: 'format', fix: 'npm run format' }],
      },
      (command) => (command === 'npm run format:check' ? { exitCode: 1, output: UNFORMATTED } : { exitCode: 0 }),
    )
    const first = await runOneIteration(loop.input, loop.deps)
    expect(first.next).toMatchObject({ kind: 'RETRY', strategy: 'auto_fix' })
    expect(loop.runner.count('npm run format', 1)).toBe(1)

    const second = await runOneIteration(loop.input, loop.deps)
    expect(second.decision).toMatchObject({ kind: 'RETRY', strategy: 'auto_fix' })
    expect(loop.runner.count('npm run format', 2)).toBe(1)
  })

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

  it('hands a lint failure no fix command covers to the agent as its own, and never says a fix was applied', async () => {
    const loop = fakeLoop(
      {
        'flake-check': { enabled: false },
        checks: [
          { name: 'lint', run: 'eslint .', kind: 'lint' },
          { name: 'unit', run: 'npm test', kind: 'test' },
        ],
      },
      (command) =>
        command === 'eslint .'
          ? { exitCode: 1, output: LINT }
          : command === 'npm test'
            ? { exitCode: 1, output: 'not ok 1 - adds\n  AssertionError: expected 1 to equal 2\n' }
            : { exitCode: 0 },
    )
    const prompt = (iteration: number) => loop.files.get(`/repo/.loop/unit/runs/${iteration}/prompt.md`) ?? ''
    const first = await runOneIteration(loop.input, loop.deps)
    const lint = first.checks.find((check) => check.name === 'lint')
    // No fix command: the failure's strategy is the pattern's first alternate, not auto_fix.
    expect(lint?.strategy).toBe('analyze_then_fix')
    expect(first.next).toMatchObject({ kind: 'RETRY' })
    expect(first.next).not.toMatchObject({ strategy: 'auto_fix' })
    const firstPrompt = prompt(1)
    const whatFailed = firstPrompt.slice(
      firstPrompt.indexOf('## What failed'),
      firstPrompt.indexOf('Other failing checks'),
    )
    expect(whatFailed).toContain('The check `lint` (lint) failed')
    expect(whatFailed).toContain('src/app.js:1:7')

    await runOneIteration(loop.input, loop.deps)
    for (const text of [firstPrompt, prompt(2)]) {
      expect(text).not.toMatch(/applied by the controller/)
      expect(text).not.toMatch(/## Strategy: `auto_fix`/)
    }
    expect(loop.runner.count('agent', 2)).toBe(1)
  })
})

describe('the ending and the save that carries it', () => {
  it.each([
    { ending: 'complete', script: () => ({ exitCode: 0 }) },
    { ending: 'blocked', script: () => ({ exitCode: 1, output: 'AssertionError: expected 1 to equal 2' }) },
  ])('writes final.md before the $ending state is saved, so a snapshot of the trail holds it', async (row) => {
    const loop = fakeLoop(
      { 'flake-check': { enabled: false }, checks: [{ name: 'unit', run: 'npm test', kind: 'test' }] },
      row.script,
    )
    // What the trail holds at each save, as a store that uploads it with the state would see it.
    const atSave: { status: string; final: boolean }[] = []
    const save = loop.store.save.bind(loop.store)
    loop.store.save = async (loopId, state, expected) => {
      atSave.push({ status: state.status, final: loop.audit.files.has('final.md') })
      return save(loopId, state, expected)
    }
    let result = await runOneIteration(loop.input, loop.deps)
    for (let i = 0; i < 10 && result.outcome === 'continue'; i++) result = await runOneIteration(loop.input, loop.deps)
    expect(result.outcome).toBe(row.ending)
    expect(atSave.at(-1)).toEqual({ status: row.ending, final: true })
    expect(atSave.slice(0, -1).every((s) => !s.final)).toBe(true)
  })
})
