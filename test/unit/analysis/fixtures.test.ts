import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { analyzeText, buildLibrary, StreamingAnalyzer } from '../../../src/domain/analysis/index.js'
import type { CheckKind } from '../../../src/domain/stages.js'

interface Expected {
  file: string
  pattern: string
  strategy: string
  kind?: CheckKind
  timedOut?: boolean
  locations: { fileEndsWith: string; line?: number; column?: number }[]
}
const root = join(import.meta.dirname, '../../fixtures')
const manifest = JSON.parse(readFileSync(join(root, 'manifest.json'), 'utf8')) as { fixtures: Expected[] }
const library = buildLibrary()

describe('captured real tool output', () => {
  it.each(manifest.fixtures.map((f) => [f.file, f] as const))('%s', (_name, fixture) => {
    const text = readFileSync(join(root, fixture.file), 'utf8')
    const extra = fixture.timedOut ? { timedOut: true } : {}
    for (const options of [{ ...extra }, { ...extra, ...(fixture.kind ? { kind: fixture.kind } : {}) }]) {
      const analysis = analyzeText(text, library, options)
      expect(analysis.pattern).toBe(fixture.pattern)
      expect(analysis.strategy).toBe(fixture.strategy)
      expect(analysis.confidence).toBeGreaterThanOrEqual(0.7)
      expect(analysis.signature).toMatch(new RegExp(`^${fixture.pattern}:[a-z0-9]+:[0-9a-f]{8}$`))
      fixture.locations.forEach((want, i) => {
        const got = analysis.locations[i]
        expect(got?.file.endsWith(want.fileEndsWith)).toBe(true)
        expect(got?.line).toBe(want.line)
        expect(got?.column).toBe(want.column)
      })
    }
  })

  it('covers every default id with two real tools (one for security-finding and timeout)', () => {
    const byId = new Map<string, number>()
    for (const f of manifest.fixtures) byId.set(f.pattern, (byId.get(f.pattern) ?? 0) + 1)
    for (const pattern of library.patterns) {
      if (pattern.id === 'regression-detected') continue
      expect(byId.get(pattern.id) ?? 0, pattern.id).toBeGreaterThanOrEqual(2)
    }
  })

  it('gives the same answer when the output arrives one byte, or 7 bytes, at a time', () => {
    for (const fixture of manifest.fixtures.filter((_, i) => i % 5 === 0)) {
      const bytes = readFileSync(join(root, fixture.file))
      const whole = analyzeText(bytes.toString('utf8'), library)
      for (const size of [1, 7]) {
        const analyzer = new StreamingAnalyzer(library)
        for (let i = 0; i < bytes.length; i += size) analyzer.push(bytes.subarray(i, i + size))
        const streamed = analyzer.finish()
        expect({ file: fixture.file, ...streamed }).toEqual({ file: fixture.file, ...whole })
      }
    }
  })
})
