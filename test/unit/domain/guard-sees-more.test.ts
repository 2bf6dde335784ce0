// What the verifier-gaming guard sees beyond text diffs: package.json scripts, ignored files on
// protected paths, and binary or large files.
import { describe, expect, it } from 'vitest'
import { type FileChange, inspectProtectedChanges } from '../../../src/domain/analysis/guard.js'
import { packageScriptChanges } from '../../../src/domain/analysis/package-scripts.js'

const rules = { protectedGlobs: ['fixtures/**'], testGlobs: ['**/*.test.*'] }
const pkg = (scripts: Record<string, string>) => JSON.stringify({ name: 'p', scripts })

describe('packageScriptChanges', () => {
  const cases: { name: string; before: string; after: string; findings: RegExp[] }[] = [
    {
      name: 'test replaced by exit 0',
      before: pkg({ test: 'vitest run' }),
      after: pkg({ test: 'exit 0' }),
      findings: [/'test' changed.*can no longer fail/],
    },
    {
      name: 'test replaced by an echo',
      before: pkg({ test: 'jest' }),
      after: pkg({ test: 'echo ok' }),
      findings: [/can no longer fail/],
    },
    {
      name: 'test made to swallow failure',
      before: pkg({ test: 'jest' }),
      after: pkg({ test: 'jest || true' }),
      findings: [/can no longer fail/],
    },
    {
      name: 'lint changed',
      before: pkg({ lint: 'biome check .' }),
      after: pkg({ lint: 'biome check src' }),
      findings: [/'lint' changed from 'biome check \.' to 'biome check src'$/],
    },
    {
      name: 'a script removed',
      before: pkg({ test: 'jest', lint: 'x' }),
      after: pkg({ test: 'jest' }),
      findings: [/'lint' removed/],
    },
    { name: 'a script added', before: pkg({ test: 'jest' }), after: pkg({ test: 'jest', build: 'tsc' }), findings: [] },
    {
      name: 'other fields changed',
      before: pkg({ test: 'jest' }),
      after: JSON.stringify({ name: 'q', scripts: { test: 'jest' } }),
      findings: [],
    },
    { name: 'not JSON after', before: pkg({ test: 'jest' }), after: '{', findings: [] },
    { name: 'no scripts before', before: '{}', after: pkg({ test: 'exit 0' }), findings: [] },
  ]
  for (const c of cases) {
    it(c.name, () => {
      const findings = packageScriptChanges(c.before, c.after)
      expect(findings).toHaveLength(c.findings.length)
      for (const [i, pattern] of c.findings.entries()) expect(findings[i]).toMatch(pattern)
    })
  }
})

describe('inspectProtectedChanges, beyond text', () => {
  const cases: { name: string; change: FileChange; reason: RegExp | null }[] = [
    {
      name: 'a package.json anywhere with its test script neutered',
      change: { path: 'packages/a/package.json', before: pkg({ test: 'jest' }), after: pkg({ test: 'true' }) },
      reason: /script 'test' changed/,
    },
    {
      name: 'an ignored file created on a protected path',
      change: { path: 'fixtures/out.snap', before: null, after: 'f1', ignored: true },
      reason: /ignored file on a protected path created/,
    },
    {
      name: 'a binary protected file modified',
      change: { path: 'fixtures/a.bin', before: '', after: '', unreadable: { before: 'binary', after: 'binary' } },
      reason: /protected path modified \(binary/,
    },
    {
      name: 'a large protected file created',
      change: { path: 'fixtures/a.txt', before: null, after: '', unreadable: { after: 'large' } },
      reason: /protected path created \(too large/,
    },
    {
      name: 'a test file with assertions made binary',
      change: { path: 'a.test.ts', before: 'expect(1).toBe(1)', after: '', unreadable: { after: 'binary' } },
      reason: /1 assertion\(s\) became binary/,
    },
    {
      name: 'a binary test fixture that was binary before',
      change: { path: 'a.test.bin', before: '', after: '', unreadable: { before: 'binary', after: 'binary' } },
      reason: null,
    },
    {
      name: 'an unprotected binary file',
      change: { path: 'assets/logo.png', before: '', after: '', unreadable: { before: 'binary', after: 'binary' } },
      reason: null,
    },
  ]
  for (const c of cases) {
    it(c.name, () => {
      const findings = inspectProtectedChanges([c.change], rules)
      if (c.reason === null) expect(findings).toEqual([])
      else expect(findings.map((f) => f.reason).join('; ')).toMatch(c.reason)
    })
  }
})
