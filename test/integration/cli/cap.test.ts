// The iteration cap lives in the loop's state (issue 13, point 5): set when the loop starts, kept by every
// later run that gives none (on GitHub, a re-dispatch that does not carry the input), changed only by a
// cap a person gives. Before, a run without the flag fell back to the config's default of 10.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cli, tempRepo } from './helpers.js'

// Progress every iteration (one more step, so one check fewer fails each time), never done: only the
// cap stops it.
const CONFIG = [
  'goal: Climb twenty steps.',
  'retry:',
  '  total: 50',
  'work:',
  '  run: echo x >> steps.txt',
  'checks:',
  ...Array.from({ length: 20 }, (_, i) => [
    `  - name: step-${i + 1}`,
    '    kind: test',
    `    run: test "$(cat steps.txt 2>/dev/null | wc -l)" -ge ${i + 1}`,
  ]).flat(),
  '',
].join('\n')

const stateOf = (repo: string) =>
  JSON.parse(readFileSync(join(repo, '.loop', 'cap', 'loop-state.json'), 'utf8')) as {
    iteration: number
    maxIterations: number
    status: string
  }

describe('the iteration cap across runs', () => {
  it('keeps the cap a loop started with; a cap given later changes it', async () => {
    const repo = tempRepo({ files: { '.github/loop.yml': CONFIG } })
    const first = await cli(
      repo,
      'run',
      '--loop-id',
      'cap',
      '--no-commit',
      '--max-iterations',
      '12',
      '--cap-reason',
      'a long climb',
    )
    // Stopped by a person's abort? No: by its cap of 12, not the config's default of 10.
    expect(first.code, first.stdout + first.stderr).toBe(5)
    expect(stateOf(repo)).toMatchObject({ iteration: 12, maxIterations: 12, status: 'capped' })

    // A later run without the flag keeps 12: still capped, no iteration runs, and the header says so.
    const again = await cli(repo, 'run', '--loop-id', 'cap', '--no-commit')
    expect(again.code).toBe(5)
    expect(again.stdout).toContain('cap 12')
    expect(stateOf(repo)).toMatchObject({ iteration: 12, maxIterations: 12 })

    // A resume alone would be capped again at once: refused (behaviour changed: it was applied, and only a
    // later run's higher cap let the loop go on). A run given 14 re-opens it and goes two iterations further.
    const resumed = await cli(repo, 'resume', '--loop-id', 'cap')
    expect(resumed.code).toBe(2)
    expect(resumed.stderr).toContain('resume it with a higher cap (max-iterations above 12)')
    const raised = await cli(
      repo,
      'run',
      '--loop-id',
      'cap',
      '--no-commit',
      '--max-iterations',
      '14',
      '--cap-reason',
      'a long climb',
    )
    expect(raised.code, raised.stdout + raised.stderr).toBe(5)
    expect(stateOf(repo)).toMatchObject({ iteration: 14, maxIterations: 14, status: 'capped' })
    const journey = readFileSync(join(repo, '.loop', 'cap', 'journey-log.jsonl'), 'utf8')
    expect(journey).toContain('iteration cap 12 -> 14 (given to this run)')
    expect(journey).toContain('re-opened: the iteration cap is now 14, above the 12 iterations run')
  }, 180_000)
})
