import { describe, expect, it } from 'vitest'
import {
  analyzeText,
  buildLibrary,
  compilePattern,
  libraryOf,
  StreamingAnalyzer,
  tierOf,
} from '../../../src/domain/analysis/index.js'

const library = buildLibrary()

/** A library of one pattern, `boom`, signalled by BOOM or BANG, with the excerpt lines given. */
const boom = (excerpt?: string[]) =>
  libraryOf([
    compilePattern({
      id: 'boom',
      signals: ['BOOM', 'BANG'],
      anchors: [],
      kinds: [],
      strategy: 'escalate',
      alternates: [],
      retryable: false,
      locations: [],
      excerpt,
    }),
  ])

describe('StreamingAnalyzer on bad input', () => {
  it('gives no match for empty input', () => {
    const analysis = new StreamingAnalyzer(library).finish()
    expect(analysis).toMatchObject({
      pattern: null,
      confidence: 0,
      tier: 'none',
      strategy: 'analyze_then_fix',
      locations: [],
    })
    expect(analysis.signature).toMatch(/^unknown:none:[0-9a-f]{8}$/)
  })

  it('survives binary and invalid UTF-8 and still finds a signal after it', () => {
    const analyzer = new StreamingAnalyzer(library)
    const noise = Buffer.alloc(1 << 20)
    for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24
    analyzer.push(noise)
    analyzer.push(Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0x0a]))
    analyzer.push('\nError: connect ECONNREFUSED 127.0.0.1:5432\n')
    const analysis = analyzer.finish()
    expect(analysis.pattern).toBe('network-error')
    expect(analysis.excerpt.length).toBeLessThanOrEqual(4000)
  })

  it('caps a 100 MB line with no newline and still sees signals in it', () => {
    const analyzer = new StreamingAnalyzer(library)
    const block = Buffer.alloc(1 << 20, 'a')
    for (let i = 0; i < 100; i++) analyzer.push(block)
    analyzer.push(' FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory')
    const analysis = analyzer.finish()
    expect(analysis.pattern).toBe('out-of-memory')
    expect(analysis.excerpt.length).toBeLessThanOrEqual(4000)
  })
})

describe('StreamingAnalyzer over chunks', () => {
  it('keeps a signal that ends in the chunk that also ends the line before it, whatever the chunk size', () => {
    // The line before is a candidate (`.js:`); in some chunkings the chunk that ends it also holds `BOOM`.
    const text = Buffer.from('at x.js:1\nBOOM went the test\n')
    for (let size = 1; size <= text.length; size++) {
      const analyzer = new StreamingAnalyzer(boom())
      for (let i = 0; i < text.length; i += size) analyzer.push(text.subarray(i, i + size))
      expect({ size, excerpt: analyzer.finish().excerpt }).toEqual({ size, excerpt: 'BOOM went the test' })
    }
  })
})

describe("a pattern's excerpt lines", () => {
  it('join the excerpt when the pattern wins and never change its score', () => {
    const text = 'noise\nBOOM in test_adds\nReceived: 7\nmore noise\n'
    const plain = analyzeText(text, boom())
    const withLines = analyzeText(text, boom(['/^Received: /']))
    expect(plain.excerpt).toBe('BOOM in test_adds')
    expect(withLines.excerpt).toBe('BOOM in test_adds\nReceived: 7')
    expect(withLines.confidence).toBe(plain.confidence)
  })

  it('alone are no match', () => {
    expect(analyzeText('Received: 7\n', boom(['/^Received: /'])).pattern).toBeNull()
  })
})

describe('controller facts', () => {
  it('timedOut wins with confidence 1', () => {
    const analysis = analyzeText('src/a.ts(1,2): error TS2322: x', library, { timedOut: true })
    expect(analysis).toMatchObject({ pattern: 'timeout', confidence: 1, strategy: 'retry_with_backoff' })
  })
  it('exit code 137 means out of memory', () => {
    expect(analyzeText('', library, { exitCode: 137 })).toMatchObject({
      pattern: 'out-of-memory',
      strategy: 'escalate',
    })
  })
  it('spawn ENOENT means command not found', () => {
    const analysis = analyzeText('', library, { spawnError: 'spawn ruff ENOENT' })
    expect(analysis).toMatchObject({ pattern: 'command-not-found', strategy: 'dependency_check', tier: 'confident' })
  })
  it('unknown output is no match with the analyze_then_fix strategy', () => {
    const analysis = analyzeText('all good here\nnothing to see\n', library)
    expect(analysis).toMatchObject({ pattern: null, tier: 'none', strategy: 'analyze_then_fix' })
    expect(analysis.excerpt).toContain('nothing to see')
  })
})

describe('scoring', () => {
  it.each([
    [0.95, 'confident'],
    [0.7, 'confident'],
    [0.69, 'review'],
    [0.5, 'review'],
    [0.49, 'consider-escalation'],
    [0.3, 'consider-escalation'],
    [0.29, 'none'],
    [0, 'none'],
  ] as const)('confidence %s is tier %s', (confidence, tier) => {
    expect(tierOf(confidence)).toBe(tier)
  })

  it('one weak signal gives a low-tier match; the check kind as a prior raises it', () => {
    const text = 'something failing here\n'
    const plain = analyzeText(text, library)
    const asTest = analyzeText(text, library, { kind: 'test' })
    expect(plain.pattern).toBe('test-failure')
    expect(plain.tier).toBe('consider-escalation')
    expect(asTest.confidence).toBeGreaterThan(plain.confidence)
    expect(asTest.tier).toBe('review')
  })

  it('keeps the tokens for the same-error rule bounded and normalised', () => {
    const analysis = analyzeText(
      'src/a.ts(12,5): error TS2322: Type string is not assignable to type number.\n',
      library,
    )
    expect(analysis.tokens).toContain('<path>')
    expect(analysis.tokens.length).toBeLessThanOrEqual(400)
  })
})
