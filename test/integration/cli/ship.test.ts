// SHIP through the CLI: a loop whose checks pass waits there for its pull request to be merged. `run`
// and `status` tell one truth about it: waiting (exit 4), never BLOCKED (exit 3).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cli, tempRepo } from './helpers.js'

describe('SHIP', () => {
  it('run and status both say waiting for the merge, exit 4', async () => {
    const config = [
      'goal: Ship it.',
      'pipeline: [IMPLEMENT, VERIFY, SHIP, COMPLETE]',
      'max-iterations: 5',
      'work:',
      '  run: touch done',
      'checks:',
      '  - name: unit',
      '    kind: test',
      '    run: test -f done',
      '',
    ].join('\n')
    const repo = tempRepo({ files: { '.github/loop.yml': config } })
    const run = await cli(repo, 'run', '--loop-id', 'ship', '--no-commit')
    expect(run.stdout).toMatch(/WAITING at iteration \d+: waiting for the pull request to be merged/)
    expect(run.stdout).not.toContain('BLOCKED')
    expect(run.code).toBe(4)
    const state = JSON.parse(readFileSync(join(repo, '.loop', 'ship', 'loop-state.json'), 'utf8'))
    expect([state.stage, state.status]).toEqual(['SHIP', 'waiting'])
    const status = await cli(repo, 'status', '--loop-id', 'ship')
    expect(status.code).toBe(4)
  }, 120_000)
})
