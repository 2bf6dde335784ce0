// A check that passed at the baseline and fails now is a regression: the progress line, the prompt and
// the saved state say so, and it is counted (and journaled) once, however many iterations it stays red.
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cli, tempRepo } from './helpers.js'

/** Passes until `broken.txt` exists; its failure matches no known pattern. */
const CHECK = `import { existsSync } from 'node:fs'
if (existsSync('broken.txt')) { console.log('the widget is out of order'); process.exit(1) }
console.log('widget fine')
`

describe('regressions', () => {
  it('are named on the progress line, in the prompt and the state, and counted once per check', async () => {
    const repo = tempRepo({ files: { 'check.mjs': CHECK } })
    const kept = mkdtempSync(join(tmpdir(), 'loop-regression-'))
    // The work breaks the check on its first call and changes nothing after: the loop retries, then stops.
    const work = `cp "$LOOP_PROMPT_FILE" "${kept}/prompt-$LOOP_ITERATION.md" && echo broken > broken.txt`
    const run = await cli(
      repo,
      'run',
      '--work',
      work,
      '--verify',
      'node check.mjs',
      '--max-iterations',
      '4',
      '--loop-id',
      'reg',
    )
    const analysisLines = run.stdout.split('\n').filter((line) => line.includes('→'))
    expect(analysisLines.length).toBeGreaterThanOrEqual(2)
    for (const line of analysisLines) {
      expect(line).toContain('regression')
      expect(line).not.toContain('unclassified')
    }
    expect(readFileSync(join(kept, 'prompt-2.md'), 'utf8')).toContain('passed before the loop started (a regression)')
    const state = JSON.parse(readFileSync(join(repo, '.loop', 'reg', 'loop-state.json'), 'utf8'))
    expect(state.iteration).toBeGreaterThanOrEqual(2)
    expect(state.lastVerification.results[0]).toMatchObject({ regression: true, pattern: 'regression-detected' })
    expect(state.metrics.regressions).toBe(1)
    const journey = readFileSync(join(repo, '.loop', 'reg', 'journey-log.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string })
    expect(journey.filter((e) => e.type === 'regression')).toHaveLength(1)
  }, 120_000)
})
