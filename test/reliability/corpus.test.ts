/**
 * The hostile-input corpus (test/corpus/<category>/<case>.*, each with `<case>.expect.json`), run through
 * the real entry points: the CLI's `runCli` for configs, states and pattern files, `analyze` for command
 * output, `parseActionInputs` for action inputs, and the event readers of src/domain for payloads.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import type { CliIo } from '../../src/cli/io.js'
import { runCli } from '../../src/cli/main.js'
import { ActionInputError, parseActionInputs } from '../../src/config/action-inputs.js'
import { interpretEvent } from '../../src/domain/action-event.js'
import { isUntrustedTrigger, parseCommentCommand } from '../../src/domain/commands.js'
import { recordProof } from './record-proof.js'

const CORPUS = resolve(import.meta.dirname, '..', 'corpus')

interface Expectation {
  exit?: number
  contains?: string[]
  /** Each said exactly once (a problem is not reported twice). */
  once?: string[]
  notContains?: string[]
  quarantined?: boolean
  pattern?: string | null
  forbidLinePrefix?: string
  maxMs?: number
  input?: string
  error?: string
  problem?: string
  none?: boolean
  noThrow?: boolean
  refuse?: boolean
}

/** Every case of a category: its file and its expectation. */
function cases(category: string): { name: string; stem: string; file: string; expect: Expectation }[] {
  const dir = join(CORPUS, category)
  return readdirSync(dir)
    .filter((n) => !n.endsWith('.expect.json'))
    .sort()
    .map((name) => {
      const stem = name.replace(/\.[^.]+$/, '').replace(/\.gen$/, '')
      return {
        name,
        stem,
        file: join(dir, name),
        expect: JSON.parse(readFileSync(join(dir, `${stem}.expect.json`), 'utf8')) as Expectation,
      }
    })
}

async function cli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const io: CliIo = {
    stdout: (t) => {
      stdout += t
    },
    stderr: (t) => {
      stderr += t
    },
    stdin: new PassThrough(),
    isTTY: false,
    cwd,
    env: { PATH: process.env.PATH ?? '', GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL ?? '' },
  }
  const code = await runCli(args, io)
  return { code, stdout, stderr }
}

const VALID_CONFIG = 'goal: g\nwork:\n  run: node agent.mjs\nchecks:\n  - name: unit\n    run: node check.mjs\n'

function expectClearError(result: { code: number; stderr: string }, expectation: Expectation): void {
  expect(result.code, result.stderr).toBe(expectation.exit ?? 2)
  for (const text of expectation.contains ?? []) expect(result.stderr).toContain(text)
  for (const text of expectation.once ?? []) expect(result.stderr.split(text).length - 1, result.stderr).toBe(1)
  for (const text of expectation.notContains ?? []) expect(result.stderr).not.toContain(text)
  expect(result.stderr).not.toContain('internal error')
}

const CORPUS_CATEGORIES = ['config', 'state', 'patterns', 'patterns-ok', 'output', 'inputs', 'events']

/** Cases that held, per category: counted as each passes, for the recorded figures. */
const held: Record<string, number> = Object.fromEntries(CORPUS_CATEGORIES.map((c) => [c, 0]))

/** A corpus case: a test that counts itself as held when it passes. */
function corpusCase(category: string, name: string, run: () => Promise<void> | void): void {
  it(name, async () => {
    await run()
    held[category] = (held[category] ?? 0) + 1
  })
}

recordProof('corpus', () => ({
  categories: Object.fromEntries(CORPUS_CATEGORIES.map((c) => [c, { cases: cases(c).length, held: held[c] ?? 0 }])),
  outputCases: cases('output').map((c) => c.stem),
}))

describe('hostile input corpus', () => {
  it('has at least 50 cases', () => {
    const total = CORPUS_CATEGORIES.reduce((sum, c) => sum + cases(c).length, 0)
    expect(total).toBeGreaterThanOrEqual(50)
  })

  it('has a case for every expectation (a case file left uncommitted would not run)', () => {
    const orphans = CORPUS_CATEGORIES.flatMap((category) => {
      const stems = new Set(cases(category).map((c) => c.stem))
      return readdirSync(join(CORPUS, category))
        .filter((name) => name.endsWith('.expect.json') && !stems.has(name.replace(/\.expect\.json$/, '')))
        .map((name) => `${category}/${name}`)
    })
    expect(orphans).toEqual([])
  })

  describe('configs: `next --config FILE` stops with a clear error, exit 2', () => {
    for (const c of cases('config')) {
      corpusCase('config', c.name, async () => {
        const dir = mkdtempSync(join(tmpdir(), 'corpus-config-'))
        copyFileSync(c.file, join(dir, 'bad-config.yml'))
        const result = await cli(['next', '--config', 'bad-config.yml', '--loop-id', 'corpus'], dir)
        expectClearError(result, c.expect)
        expect(result.stderr).toContain('bad-config.yml')
        // Nothing ran: no state was started.
        expect(existsSync(join(dir, '.loop', 'corpus', 'loop-state.json'))).toBe(false)
      })
    }
  })

  describe('states: `status` refuses with a clear error, exit 2, and the bad state is kept', () => {
    for (const c of cases('state')) {
      corpusCase('state', c.name, async () => {
        const dir = mkdtempSync(join(tmpdir(), 'corpus-state-'))
        const loopDir = join(dir, '.loop', 'corpus')
        mkdirSync(loopDir, { recursive: true })
        const bytes = readFileSync(c.file)
        writeFileSync(join(loopDir, 'loop-state.json'), bytes)
        const result = await cli(['status', '--loop-id', 'corpus'], dir)
        expectClearError(result, c.expect)
        expect(result.stderr).toContain('loop-state')
        const names = readdirSync(loopDir)
        if (c.expect.quarantined === false) {
          // A newer schema is left where it is, untouched.
          expect(readFileSync(join(loopDir, 'loop-state.json')).equals(bytes)).toBe(true)
        } else {
          const kept = names.find((n) => n.startsWith('loop-state.invalid-'))
          expect(kept, names.join(', ')).toBeDefined()
          expect(readFileSync(join(loopDir, kept as string)).equals(bytes)).toBe(true)
          // A later run is refused too, rather than starting afresh over the bad state.
          const again = await cli(['next', '--work', 'true', '--verify', 'true', '--loop-id', 'corpus'], dir)
          expect(again.code).toBe(2)
          expect(again.stderr).toContain('quarantined')
        }
      })
    }
  })

  describe('pattern files: named by the config, refused with a clear error, exit 2', () => {
    for (const c of cases('patterns')) {
      corpusCase('patterns', c.name, async () => {
        const dir = mkdtempSync(join(tmpdir(), 'corpus-patterns-'))
        copyFileSync(c.file, join(dir, 'patterns.yml'))
        writeFileSync(join(dir, 'loop.yml'), `${VALID_CONFIG}patterns: patterns.yml\n`)
        const result = await cli(['next', '--config', 'loop.yml', '--loop-id', 'corpus'], dir)
        expectClearError(result, c.expect)
        // The file, or the pattern by its id, is named.
        expect(result.stderr).toMatch(/patterns\.yml|Pattern '/)
      })
    }
  })

  describe('patterns that would backtrack catastrophically: accepted (RE2 is linear) and fast', () => {
    for (const c of cases('patterns-ok')) {
      corpusCase('patterns-ok', c.name, async () => {
        const dir = mkdtempSync(join(tmpdir(), 'corpus-patterns-ok-'))
        copyFileSync(c.file, join(dir, 'patterns.yml'))
        writeFileSync(join(dir, 'input.log'), c.expect.input ?? '')
        const started = Date.now()
        const result = await cli(['analyze', 'input.log', '--patterns', 'patterns.yml', '--json'], dir)
        expect(result.code, result.stderr).toBe(c.expect.exit)
        expect(Date.now() - started).toBeLessThan(c.expect.maxMs ?? 5000)
      })
    }
  })

  describe('command output: `analyze` classifies it and never echoes a workflow command', () => {
    for (const c of cases('output')) {
      corpusCase('output', c.name, async () => {
        const dir = mkdtempSync(join(tmpdir(), 'corpus-output-'))
        let input = c.file
        if (c.name.endsWith('.gen.json')) {
          const spec = JSON.parse(readFileSync(c.file, 'utf8')) as { repeat: string; times: number; suffix: string }
          input = join(dir, 'generated.log')
          writeFileSync(input, spec.repeat.repeat(spec.times) + spec.suffix)
        }
        const started = Date.now()
        const json = await cli(['analyze', input, '--json', '--kind', 'test'], dir)
        expect(json.code, json.stderr).toBe(c.expect.exit)
        expect(Date.now() - started).toBeLessThan(c.expect.maxMs ?? 5000)
        const analysis = JSON.parse(json.stdout) as { pattern: string | null }
        expect(analysis.pattern).toBe(c.expect.pattern)
        if (c.expect.forbidLinePrefix) {
          const people = await cli(['analyze', input, '--kind', 'test'], dir)
          const prefix = c.expect.forbidLinePrefix
          for (const output of [people.stdout, json.stdout]) {
            expect(output.split(/\r?\n/).filter((line) => line.startsWith(prefix))).toEqual([])
          }
        }
      })
    }
  })

  describe('action inputs: parseActionInputs names the input, the bad value and what is expected', () => {
    for (const c of cases('inputs')) {
      corpusCase('inputs', c.name, () => {
        const { inputs } = JSON.parse(readFileSync(c.file, 'utf8')) as { inputs: Record<string, string> }
        let thrown: unknown
        try {
          parseActionInputs((name) => inputs[name] ?? '', { eventName: 'workflow_dispatch', payload: {}, runId: 1 }, {})
        } catch (error) {
          thrown = error
        }
        expect(thrown).toBeInstanceOf(ActionInputError)
        for (const text of c.expect.contains ?? []) expect((thrown as Error).message).toContain(text)
      })
    }
  })

  describe('event payloads and comment bodies', () => {
    for (const c of cases('events')) {
      corpusCase('events', c.name, () => {
        const spec = JSON.parse(readFileSync(c.file, 'utf8')) as {
          parse: 'comment' | 'event' | 'trigger'
          body?: string
          event?: string
          payload?: Record<string, unknown>
        }
        if (spec.parse === 'comment') {
          const parsed = parseCommentCommand(spec.body ?? '')
          if (c.expect.none) expect(parsed).toBeNull()
          else {
            expect(parsed && 'problem' in parsed).toBe(true)
            expect((parsed as { problem: string }).problem).toContain(c.expect.problem)
          }
        } else if (spec.parse === 'event') {
          const intent = interpretEvent(spec.event ?? '', spec.payload ?? {})
          expect(['none', 'problem', 'run', 'command', 'review-approval', 'merged']).toContain(intent.kind)
        } else {
          const assessment = isUntrustedTrigger(spec.event ?? '', spec.payload ?? {}, false)
          expect(assessment.refuse).toBe(c.expect.refuse)
          expect(assessment.reason).toContain(c.expect.contains)
          expect(isUntrustedTrigger(spec.event ?? '', spec.payload ?? {}, true).refuse).toBe(false)
        }
      })
    }
  })
})
