import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loopStateSchema } from '../../../src/domain/state.js'
import { cli, tempRepo } from './helpers.js'

function stateOf(repo: string, loopId: string) {
  return loopStateSchema.parse(JSON.parse(readFileSync(join(repo, '.loop', loopId, 'loop-state.json'), 'utf8')))
}

function runsOf(log: string): number {
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').length : 0
}

describe('VERIFY does what it says', () => {
  it('runs the checks marked verify-only when the work reaches VERIFY, never before, and completes only when they pass', async () => {
    const kept = mkdtempSync(join(tmpdir(), 'loop-verify-'))
    const e2eLog = join(kept, 'e2e-runs')
    const repo = tempRepo({
      files: {
        '.github/loop.yml': [
          'goal: Make the slow end-to-end suite pass.',
          'max-iterations: 6',
          // A failing check is re-run once to tell a flake; off, so the runs counted are the matrix's own.
          'flake-check: { enabled: false }',
          'work:',
          // The second attempt fixes what the end-to-end suite checks.
          `  run: ${JSON.stringify('if [ "$LOOP_ITERATION" = 2 ]; then touch e2e-fixed; fi')}`,
          'checks:',
          '  - name: unit',
          '    kind: test',
          '    run: "true"',
          '  - name: e2e',
          '    kind: test',
          `    run: ${JSON.stringify(`echo run >> "${e2eLog}"; test -f e2e-fixed || { echo "e2e: checkout flow fails"; exit 1; }`)}`,
          '    verify-only: true',
          '',
        ].join('\n'),
      },
    })
    const run = await cli(repo, 'run', '--loop-id', 'e2e')
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('e2e ✗')
    expect(run.stdout).toContain('e2e ✓')
    const state = stateOf(repo, 'e2e')
    expect(state.status).toBe('complete')
    expect(state.iteration).toBe(2)
    // Not in the baseline: once per iteration that reached VERIFY.
    expect(runsOf(e2eLog)).toBe(2)
    expect(state.baseline?.checks).toEqual({ unit: 'pass' })
  }, 120_000)

  it('in the full pipeline, VERIFY needs the whole matrix: a failing required check of any kind keeps the loop from going past it', async () => {
    const kept = mkdtempSync(join(tmpdir(), 'loop-verify-'))
    const e2eLog = join(kept, 'e2e-runs')
    const repo = tempRepo({
      files: {
        '.github/loop.yml': [
          'goal: Every check green.',
          'pipeline: full',
          'max-iterations: 12',
          'work:',
          '  run: "echo working"',
          'checks:',
          '  - name: build',
          '    kind: build',
          '    run: "true"',
          '  - name: unit',
          '    kind: test',
          '    run: "true"',
          '  - name: style',
          '    kind: format',
          '    run: "echo style: src/a.js is not formatted; exit 1"',
          '  - name: e2e',
          '    kind: test',
          `    run: ${JSON.stringify(`echo run >> "${e2eLog}"`)}`,
          '    verify-only: true',
          '',
        ].join('\n'),
      },
    })
    const run = await cli(repo, 'run', '--loop-id', 'full')
    expect(run.code).toBe(3)
    const state = stateOf(repo, 'full')
    expect(state.status).toBe('blocked')
    expect(state.stages.VERIFY?.status).not.toBe('done')
    expect(state.stages.VALIDATE?.status).toBe('pending')
    expect(state.statusReason).toContain('style')
    // The verify-only check ran only in the iterations whose work reached VERIFY (TEST's), after INIT,
    // SCAFFOLD and IMPLEMENT.
    expect(runsOf(e2eLog)).toBe(state.iteration - 3)
  }, 120_000)
})
