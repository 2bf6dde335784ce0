import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { renderDefaultPatternsModule } from '../../../scripts/embed-patterns.js'
import { parsePatternFile } from '../../../src/config/pattern-library.js'
import { DEFAULT_PATTERNS } from '../../../src/domain/analysis/default-patterns.js'
import { analyzeText, buildLibrary, PatternError, requiredLiteral } from '../../../src/domain/analysis/index.js'

const repo = join(import.meta.dirname, '../../..')

describe('the default library', () => {
  it('is embedded from src/config/patterns.yml (run npx tsx scripts/embed-patterns.ts)', () => {
    const yaml = readFileSync(join(repo, 'src/config/patterns.yml'), 'utf8')
    const embedded = readFileSync(join(repo, 'src/domain/analysis/default-patterns.ts'), 'utf8')
    expect(embedded).toBe(renderDefaultPatternsModule(yaml))
    expect(DEFAULT_PATTERNS).toEqual(parsePatternFile(yaml, 'patterns.yml'))
  })

  it('has every default pattern id with its strategy', () => {
    const strategies = Object.fromEntries(buildLibrary().patterns.map((p) => [p.id, p.strategy]))
    expect(strategies).toEqual({
      'security-finding': 'escalate',
      'merge-conflict': 'escalate',
      'git-error': 'escalate',
      'permission-error': 'escalate',
      'out-of-memory': 'escalate',
      timeout: 'retry_with_backoff',
      'network-error': 'retry_with_backoff',
      'command-not-found': 'dependency_check',
      'dependency-conflict': 'escalate',
      'import-not-found': 'dependency_check',
      'syntax-error': 'analyze_then_fix',
      'type-error': 'context_expand',
      'lint-error': 'auto_fix',
      'format-error': 'auto_fix',
      'test-failure': 'analyze_then_fix',
      'build-error': 'analyze_then_fix',
      'regression-detected': 'context_expand',
      infrastructure: 'retry_with_backoff',
    })
    const library = buildLibrary()
    for (const id of ['permission-error', 'merge-conflict', 'git-error', 'security-finding']) {
      expect(library.byId(id)?.retryable, id).toBe(false)
    }
  })
})

describe('user patterns', () => {
  it('override a default by id and add new ones first', () => {
    const library = buildLibrary([
      {
        id: 'network-error',
        signals: ['flaky-net'],
        anchors: [],
        kinds: [],
        strategy: 'escalate',
        alternates: [],
        retryable: false,
        locations: [],
      },
      {
        id: 'db-locked',
        signals: ['/database is locked/i'],
        anchors: [],
        kinds: [],
        strategy: 'retry_with_backoff',
        alternates: [],
        retryable: true,
        locations: [],
      },
    ])
    expect(library.patterns[0]?.id).toBe('db-locked')
    expect(library.byId('network-error')?.strategy).toBe('escalate')
    expect(analyzeText('Error: Database IS LOCKED\n', library).pattern).toBe('db-locked')
  })

  it('refuse an id given twice in the loop config', () => {
    const twice = parsePatternFile('- id: mine\n  signals: [x]\n  strategy: auto_fix\n', 'loop.yml').flatMap((p) => [
      p,
      p,
    ])
    expect(() => buildLibrary(twice)).toThrow(PatternError)
    expect(() => buildLibrary(twice)).toThrow("Pattern 'mine' appears twice in the loop config patterns")
  })

  it.each([
    ['(a)\\1', /Backreferences and lookaround are not supported/],
    ['(?=a)b', /Backreferences and lookaround/],
    ['(?<!a)b', /Backreferences and lookaround/],
    ['[unclosed', /missing closing \]/],
  ])('rejects the regex %s with a message naming the pattern', (regex, message) => {
    const build = () => parsePatternFile(`- id: mine\n  signals: ['/${regex}/']\n  strategy: auto_fix\n`, 'loop.yml')
    expect(() => buildLibrary(build())).toThrow(PatternError)
    expect(() => buildLibrary(build())).toThrow(/Pattern 'mine': signal regex/)
    expect(() => buildLibrary(build())).toThrow(message)
  })

  it('runs a catastrophic regex in linear time', () => {
    const library = buildLibrary(
      parsePatternFile("- id: evil\n  signals: ['/(a+)+$/']\n  strategy: auto_fix\n", 'p.yml'),
    )
    const started = performance.now()
    analyzeText(`error ${'a'.repeat(4000)}!\n`.repeat(200), library)
    expect(performance.now() - started).toBeLessThan(5000)
  })

  it.each([
    ['patterns: 3', /must be a list of patterns/],
    ['other: []', /unknown top-level key\(s\) 'other'/],
    ['- id: Bad Id\n  signals: [x]\n  strategy: auto_fix', /Pattern #1 'Bad Id' in f.yml is invalid: id:/],
    ['- id: a\n  signals: []\n  strategy: auto_fix', /signals:/],
    ['- id: a\n  signals: [x]\n  strategy: hope', /strategy:/],
    ['- id: a\n  signals: [x]\n  strategy: auto_fix\n- id: a\n  signals: [y]\n  strategy: auto_fix', /appears twice/],
    ['[: bad yaml', /not valid YAML/],
    ['- id: a\n  signals: [x]\n  strategy: auto_fix\n  excerpt: [""]', /excerpt\.0:/],
  ])('rejects the file %j', (text, message) => {
    expect(() => parsePatternFile(text, 'f.yml')).toThrow(message)
  })

  it("show a user pattern's excerpt lines in its excerpt, and name a bad excerpt regex", () => {
    const mine = (line: string) =>
      parsePatternFile(`- id: mine\n  signals: [BOOM]\n  strategy: escalate\n  excerpt: ['${line}']\n`, 'loop.yml')
    const library = buildLibrary(mine('/^Got: \\d+/'))
    expect(analyzeText('BOOM\nGot: 7\n', library).excerpt).toBe('BOOM\nGot: 7')
    expect(() => buildLibrary(mine('/(?=a)b/'))).toThrow(/Pattern 'mine': excerpt regex/)
  })

  it('matches a signal regex with a counted quantifier on real lines (its digits are no prefilter)', () => {
    // The longest run outside the quantifier is `error`; `100,200` was taken for text the line must hold.
    const library = buildLibrary(
      parsePatternFile("- id: padded\n  signals: ['/^error {100,200}x$/']\n  strategy: escalate\n", 'loop.yml'),
    )
    expect(analyzeText(`error${' '.repeat(150)}x\n`, library).pattern).toBe('padded')
  })

  it('reads {patterns: [...]} and ignores x- keys', () => {
    const list = parsePatternFile(
      "x-shared: &s ['boom']\npatterns:\n  - id: boom\n    signals: *s\n    strategy: escalate\n",
      'p.yml',
    )
    expect(list.map((p) => [p.id, p.signals])).toEqual([['boom', ['boom']]])
  })
})

describe('requiredLiteral', () => {
  it.each([
    ['error TS2\\d{3}:', 'error TS2'],
    ['^Tests:\\s+\\d+ failed', ' failed'],
    ['a|b', undefined],
    ['(foo|bar)baz', 'baz'],
    ['colou?r done', 'r done'],
    ['\\bspawn \\S+ ENOENT\\b', ' ENOENT'],
    ['x+yzw', 'yzw'],
    ['ab', undefined],
    // A counted quantifier's digits are no literal, after a character, an escape, a class or a group.
    ['^_{10,} test_x', ' test_x'],
    ['^=\\s{100,200}$', undefined],
    ['[0-9]{100,200}', undefined],
    ['(ab){12,34}', undefined],
    ['x{3}yzw', 'yzw'],
    ['a{b}cde', 'cde'],
  ])('%s -> %s', (source, expected) => {
    expect(requiredLiteral(source)).toBe(expected)
  })
})
