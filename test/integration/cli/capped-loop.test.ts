import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cli, tempRepo } from './helpers.js'

// A check that never passes: the loop runs to its cap.
const STUCK = ['--work', 'true', '--verify', 'false', '--loop-id', 'capped', '--no-commit']
const state = (repo: string) => JSON.parse(readFileSync(join(repo, '.loop', 'capped', 'loop-state.json'), 'utf8'))

describe('a capped loop goes on with a higher cap', () => {
  it('resume alone is refused; resume, run or next with a higher --max-iterations go on', async () => {
    const repo = tempRepo()
    const first = await cli(repo, 'run', ...STUCK, '--max-iterations', '2')
    expect(first.code).toBe(5)
    expect(state(repo)).toMatchObject({ status: 'capped', iteration: 2, maxIterations: 2 })

    const refused = await cli(repo, 'resume', '--loop-id', 'capped')
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain("loop 'capped' is capped: the iteration cap is reached: 2 of 2 iterations")
    expect(refused.stderr).toContain('resume it with a higher cap (max-iterations above 2)')
    expect(refused.stderr).toContain('loop-controller resume --max-iterations N')
    expect(state(repo).status).toBe('capped')

    const resumed = await cli(repo, 'resume', '--loop-id', 'capped', '--max-iterations', '3')
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(state(repo)).toMatchObject({ status: 'running', maxIterations: 3 })
    const third = await cli(repo, 'run', ...STUCK)
    expect(third.code).toBe(5)
    expect(state(repo)).toMatchObject({ status: 'capped', iteration: 3, maxIterations: 3 })

    const raised = await cli(repo, 'run', ...STUCK, '--max-iterations', '4')
    expect(raised.stdout).toContain('cap 4 · resuming at iteration 3')
    expect(raised.code).toBe(5)
    expect(state(repo)).toMatchObject({ status: 'capped', iteration: 4, maxIterations: 4 })

    const next = await cli(repo, 'next', ...STUCK, '--max-iterations', '5')
    expect(next.stdout).toContain('#5  IMPLEMENT')
    expect(state(repo)).toMatchObject({ iteration: 5, maxIterations: 5 })

    const journey = readFileSync(join(repo, '.loop', 'capped', 'journey-log.jsonl'), 'utf8')
    expect(journey).toContain('re-opened: the iteration cap is now 4, above the 3 iterations run')
    expect(journey).toContain('re-opened: the iteration cap is now 5, above the 4 iterations run')
  })

  it('a resume whose cap is above 25 needs --cap-reason, and keeps it with the cap', async () => {
    const repo = tempRepo()
    expect((await cli(repo, 'run', ...STUCK, '--max-iterations', '1')).code).toBe(5)

    const refused = await cli(repo, 'resume', '--loop-id', 'capped', '--max-iterations', '50')
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('--max-iterations is 50, above 25: set --cap-reason')
    expect(state(repo)).toMatchObject({ status: 'capped', maxIterations: 1 })

    const resumed = await cli(
      repo,
      'resume',
      '--loop-id',
      'capped',
      '--max-iterations',
      '50',
      '--cap-reason',
      'a long migration',
    )
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(state(repo)).toMatchObject({ status: 'running', maxIterations: 50, capReason: 'a long migration' })
    const journey = readFileSync(join(repo, '.loop', 'capped', 'journey-log.jsonl'), 'utf8')
    expect(journey).toContain('iteration cap 1 -> 50 (given to this run): a long migration')
  })
})
