import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cli, tempRepo } from './helpers.js'

describe('one strategy per attempt', () => {
  it('the prompt, LOOP_CONTEXT_FILE, the iteration markdown, history and the progress line name the same strategy', async () => {
    const repo = tempRepo({
      files: {
        'package.json': '{"type":"module","private":true}\n',
        'src/add.js': 'export const add = (a, b) => a - b\n',
        'test/add.test.js':
          "import { test } from 'node:test'\nimport assert from 'node:assert/strict'\nimport { add } from '../src/add.js'\n\ntest('add adds', () => {\n  assert.equal(add(1, 2), 3)\n})\n",
      },
    })
    const kept = mkdtempSync(join(tmpdir(), 'loop-strategy-'))
    // An agent that changes nothing: the same failure comes back and the retry rules climb their ladder.
    const work = `cp "$LOOP_PROMPT_FILE" "${kept}/prompt-$LOOP_ITERATION.md" && cp "$LOOP_CONTEXT_FILE" "${kept}/context-$LOOP_ITERATION.json" && echo "$LOOP_STRATEGY" > "${kept}/env-$LOOP_ITERATION.txt"`
    const run = await cli(
      repo,
      'run',
      '--work',
      work,
      '--verify',
      'node --test test/',
      '--max-iterations',
      '4',
      '--loop-id',
      'one',
    )
    // Each iteration's analysis line names what the loop takes next, as the retry rules chose it.
    const taken = new Map(
      [...run.stdout.matchAll(/^#(\d+) +\S+: .* → (\S+(?: person)?)(?: \(pattern's: (\w+)\))?$/gm)].map((m) => [
        Number(m[1]),
        { strategy: m[2], patterns: m[3] },
      ]),
    )
    const history = (await cli(repo, 'history', '--loop-id', 'one')).stdout
    const seen = new Set<string | null>()
    let iteration = 1
    for (; existsSync(join(kept, `prompt-${iteration}.md`)); iteration++) {
      const context = JSON.parse(readFileSync(join(kept, `context-${iteration}.json`), 'utf8')) as {
        strategy: string | null
        failure: { strategy: string } | null
      }
      const strategy = context.strategy
      seen.add(strategy)
      const prompt = readFileSync(join(kept, `prompt-${iteration}.md`), 'utf8')
      const markdown = readFileSync(join(repo, '.loop', 'one', 'iterations', `${iteration}.md`), 'utf8')
      const env = readFileSync(join(kept, `env-${iteration}.txt`), 'utf8').trim()
      if (strategy) {
        expect(prompt).toContain(`## Strategy: \`${strategy}\``)
        expect(context.failure?.strategy).toBe(strategy)
        expect(markdown).toContain(`- **Strategy:** \`${strategy}\``)
        expect(history).toContain(`iteration ${iteration}: IMPLEMENT (${strategy})`)
      } else {
        expect(prompt).not.toContain('## Strategy:')
        expect(markdown).toContain('- **Strategy:** none (a first attempt at the stage)')
        expect(history).toMatch(new RegExp(`iteration ${iteration}: IMPLEMENT\\n`))
      }
      expect(env).toBe(strategy ?? '')
      // The line of the iteration before announced this attempt's strategy (not the pattern's own).
      if (strategy) expect(taken.get(iteration - 1)?.strategy).toBe(strategy)
      // The markdown names no other strategy for this attempt.
      const others = [...markdown.matchAll(/\*\*Strategy:\*\* `(\w+)`/g)].map((m) => m[1])
      expect(others.every((s) => s === strategy)).toBe(true)
    }
    expect(iteration).toBeGreaterThan(2)
    // The last iteration's line: BLOCKED, the failure goes to a person, the pattern's strategy labelled.
    expect(run.code).toBe(3)
    expect(taken.get(iteration - 1)).toEqual({ strategy: 'a person', patterns: expect.any(String) })
    // A switched strategy is shown with the pattern's own, labelled.
    expect([...taken.values()].some((t) => t.patterns !== undefined && t.strategy !== 'a person')).toBe(true)
    // The ladder was climbed: a first attempt, then at least two different retry strategies.
    expect(seen.size).toBeGreaterThanOrEqual(3)
  }, 120_000)
})
