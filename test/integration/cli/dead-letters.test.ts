// Dead letters are read: a failure like one an earlier loop's dead letter recorded gets that letter's
// suggestions and what was tried in its first prompt, and the candidate patterns written with dead letters
// are promoted into the repository's own patterns with `loop-controller patterns promote`.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { cli, tempRepo } from './helpers.js'

const typeErrorAt = (line: string) => `console.log(${JSON.stringify(line)})\nprocess.exit(1)\n`

describe('dead letters read back', () => {
  it("a similar failure in another loop gets the dead letter's suggestions and what was tried, in its first prompt", async () => {
    const kept = mkdtempSync(join(tmpdir(), 'loop-lessons-'))
    const config = `goal: Fix the types.
max-iterations: 4
work:
  run: cp "$LOOP_PROMPT_FILE" "${kept}/prompt-$LOOP_ID-$LOOP_ITERATION.md"
checks:
  - name: types
    kind: typecheck
    run: node check.mjs
`
    const first = "src/money.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'."
    const repo = tempRepo({ files: { '.github/loop.yml': config, 'check.mjs': typeErrorAt(first) } })
    expect((await cli(repo, 'run', '--loop-id', 'earlier')).code).toBe(3)
    expect(readdirSync(join(repo, '.loop', 'earlier', 'dead-letters')).some((f) => f.endsWith('.json'))).toBe(true)
    // Another error (another signature) of the same pattern in the same file: similar.
    const second =
      "src/money.ts(9,3): error TS2345: Argument of type 'boolean' is not assignable to parameter of type 'number'."
    writeFileSync(join(repo, 'check.mjs'), typeErrorAt(second))
    await cli(repo, 'run', '--loop-id', 'later', '--max-iterations', '1')
    const prompt = readFileSync(join(kept, 'prompt-later-1.md'), 'utf8')
    expect(prompt).toContain('## A loop was stopped by a failure like this one before')
    expect(prompt).toContain('From loop `earlier`')
    expect(prompt).toContain('- Likely root cause: A type mismatch')
    expect(prompt).toMatch(/- Tried there without success: .*`context_expand`/)
    // The loop that wrote it had no earlier letter to read.
    expect(readFileSync(join(kept, 'prompt-earlier-1.md'), 'utf8')).not.toContain('stopped by a failure like this')
  }, 180_000)
})

const WIDGET = `console.log('Widget assembly halted: gear 7 slipped off the axle')\nprocess.exit(1)\n`
const LOOP = `goal: Assemble the widget.
max-iterations: 4
work:
  run: "true"
checks:
  - name: widget
    run: node widget.mjs
`

/** A repository whose loop went BLOCKED on an unclassified failure and proposed a candidate pattern. */
async function blockedWithCandidate(files: Record<string, string> = {}) {
  const repo = tempRepo({ files: { '.github/loop.yml': LOOP, 'widget.mjs': WIDGET, ...files } })
  expect((await cli(repo, 'run', '--loop-id', 'widget')).code).toBe(3)
  const letters = join(repo, '.loop', 'widget', 'dead-letters')
  const candidateFile = readdirSync(letters).find((f) => f.endsWith('.pattern.yml')) ?? ''
  expect(candidateFile).not.toBe('')
  const id = (parse(readFileSync(join(letters, candidateFile), 'utf8')).patterns[0] as { id: string }).id
  return { repo, id, letter: join('.loop', 'widget', 'dead-letters', candidateFile.replace('.pattern.yml', '.md')) }
}

describe('patterns promote', () => {
  it('adds the candidate to a new patterns file the config is made to name, once', async () => {
    const { repo, id } = await blockedWithCandidate()
    const promoted = await cli(repo, 'patterns', 'promote', '--all')
    expect(promoted.code).toBe(0)
    expect(promoted.stdout).toContain(`Added pattern '${id}' to .github/loop-patterns.yml`)
    const file = parse(readFileSync(join(repo, '.github', 'loop-patterns.yml'), 'utf8'))
    expect(file.patterns.map((p: { id: string }) => p.id)).toEqual([id])
    expect(parse(readFileSync(join(repo, '.github', 'loop.yml'), 'utf8')).patterns).toBe('.github/loop-patterns.yml')
    // The loop's analysis now knows the failure.
    const analyzed = await cli(repo, 'analyze', 'widget.mjs', '--patterns', '.github/loop-patterns.yml', '--json')
    expect(JSON.parse(analyzed.stdout).pattern).toBe(id)
    // Promoting again adds nothing and says why.
    const again = await cli(repo, 'patterns', 'promote', id)
    expect(again.code).toBe(0)
    expect(again.stdout).toContain(`Not added: '${id}'`)
    expect(again.stdout).toContain('already there')
    expect(parse(readFileSync(join(repo, '.github', 'loop-patterns.yml'), 'utf8')).patterns).toHaveLength(1)
  }, 180_000)

  it("appends to the patterns file the config names, keeping its comments, from the dead letter's path", async () => {
    const existing = `# Our own patterns.\npatterns:\n  - id: db-locked # the test database\n    signals: ['database is locked']\n    strategy: retry_with_backoff\n`
    const { repo, id, letter } = await blockedWithCandidate({
      '.github/loop.yml': `${LOOP}patterns: ci/patterns.yml\n`,
      'ci/patterns.yml': existing,
    })
    const promoted = await cli(repo, 'patterns', 'promote', id, '--from', letter)
    expect(promoted.code).toBe(0)
    expect(promoted.stdout).toContain(`Added pattern '${id}' to ci/patterns.yml (from .loop/widget/dead-letters/`)
    const text = readFileSync(join(repo, 'ci', 'patterns.yml'), 'utf8')
    expect(text).toContain('# Our own patterns.')
    expect(text).toContain('# the test database')
    expect(parse(text).patterns.map((p: { id: string }) => p.id)).toEqual(['db-locked', id])
  }, 180_000)

  it.each([
    [
      ['patterns', 'promote', 'candidate-nope'],
      /No candidate pattern named 'candidate-nope'; the candidates are: candidate-/,
    ],
    [['patterns', 'promote', '--all', '--from', 'gone.md'], /--from: no dead letter 'gone\.md'/],
    [['patterns', 'promote'], /needs the NAME of a candidate pattern or --all/],
    [['patterns', 'demote'], /'patterns' takes the subcommand 'promote'; got 'demote'/],
  ])(
    'refuses %j with exit 2 and says what is expected',
    async (argv, message) => {
      const { repo } = await blockedWithCandidate()
      const refused = await cli(repo, ...argv)
      expect(refused.code).toBe(2)
      expect(refused.stderr).toMatch(message)
    },
    180_000,
  )

  it('--help says what it does', async () => {
    const help = await cli(tempRepo(), 'patterns', 'promote', '--help')
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('loop-controller patterns promote [NAME | --all] [--from DEAD_LETTER]')
  })
})
