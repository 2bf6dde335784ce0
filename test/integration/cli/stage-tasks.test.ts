import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loopStateSchema } from '../../../src/domain/state.js'
import { cli, tempRepo } from './helpers.js'

/** A loop whose check passes from the start and whose IMPLEMENT stage has the task `changelog`. */
function repoWithTask(work: string): string {
  return tempRepo({
    files: {
      'CHANGELOG.md': '# Changelog\n',
      '.github/loop.yml': [
        'goal: Note the change in the changelog.',
        'max-iterations: 16',
        'work:',
        `  run: ${JSON.stringify(work)}`,
        'checks:',
        '  - name: unit',
        '    kind: test',
        '    run: "true"',
        'stages:',
        '  IMPLEMENT:',
        '    tasks: [{ name: changelog, run: "grep -q Unreleased CHANGELOG.md" }]',
        '',
      ].join('\n'),
    },
  })
}

function stateOf(repo: string, loopId: string) {
  return loopStateSchema.parse(JSON.parse(readFileSync(join(repo, '.loop', loopId, 'loop-state.json'), 'utf8')))
}

describe('a mandatory stage task', () => {
  it('never done: BLOCKED after the retry budget with a handoff that names the task, not run to the cap', async () => {
    const repo = repoWithTask('echo working')
    const run = await cli(repo, 'run', '--loop-id', 'never')
    expect(run.code).toBe(3)
    expect(run.stdout).toContain('BLOCKED')
    expect(run.stdout).toContain("'changelog'")
    const state = stateOf(repo, 'never')
    expect(state.status).toBe('blocked')
    // The same budget a failing check gets: with defaults, BLOCKED by the third attempt.
    expect(state.iteration).toBeLessThanOrEqual(3)
    expect(state.metrics.workCalls).toBe(state.iteration)
    expect(state.statusReason).toContain("'changelog'")
    expect(state.statusReason).toContain('skip changelog')
    const final = readFileSync(join(repo, '.loop', 'never', 'final.md'), 'utf8')
    expect(final).toContain("'changelog'")
    const status = await cli(repo, 'status', '--loop-id', 'never')
    expect(status.code).toBe(3)
    expect(status.stdout).toContain("'changelog'")
  }, 120_000)

  it('done by the work of the first iteration: checked after the work, so the loop completes in one iteration', async () => {
    const repo = repoWithTask('printf "## Unreleased\\n- the change\\n" >> CHANGELOG.md')
    const run = await cli(repo, 'run', '--loop-id', 'once')
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const state = stateOf(repo, 'once')
    expect(state.status).toBe('complete')
    expect(state.tasks.completed).toEqual(['changelog'])
    expect(state.iteration).toBe(1)
    expect(state.metrics.workCalls).toBe(1)
  }, 120_000)
})
