/**
 * Figure 11: the pattern library's accuracy on real tool output it was not written against, the
 * held-out set of test/fixtures-heldout (captured by scripts/capture-heldout.sh after the patterns were
 * written, expectations committed before each capture; never used to tune). The baseline is the library
 * as it was before the wider tool coverage (commit 289a243), scored on the same set in the same run.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parsePatternFile } from '../src/config/pattern-library.js'
import {
  analyzeText,
  buildLibrary,
  compilePattern,
  libraryOf,
  type PatternLibrary,
} from '../src/domain/analysis/index.js'
import type { BenchRow } from './lib.js'

const ROOT = resolve(import.meta.dirname, '..')
const HELDOUT = join(ROOT, 'test', 'fixtures-heldout')
/** The library before the tools of issue 17 item 10 were added. */
const BASELINE_COMMIT = '289a243'
/** The least share of held-out outputs whose pattern must be right. */
export const REQUIRED_ACCURACY = 0.95

export interface HeldOut {
  file: string
  pattern: string
  firstFile?: string
}

export interface Score {
  right: number
  total: number
  located: number
  withFile: number
  wrong: string[]
}

export function score(library: PatternLibrary, fixtures: readonly HeldOut[], root = HELDOUT): Score {
  const result: Score = { right: 0, total: fixtures.length, located: 0, withFile: 0, wrong: [] }
  for (const fixture of fixtures) {
    const analysis = analyzeText(readFileSync(join(root, fixture.file), 'utf8'), library)
    if (analysis.pattern === fixture.pattern) result.right++
    else result.wrong.push(`${fixture.file}: got ${analysis.pattern ?? 'no match'}`)
    if (fixture.firstFile !== undefined) {
      result.withFile++
      if (analysis.locations[0]?.file.endsWith(fixture.firstFile)) result.located++
    }
  }
  return result
}

function baselineLibrary(): PatternLibrary | null {
  try {
    const text = execFileSync('git', ['show', `${BASELINE_COMMIT}:src/config/patterns.yml`], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    return libraryOf(parsePatternFile(text, `patterns.yml at ${BASELINE_COMMIT}`).map(compilePattern))
  } catch {
    return null
  }
}

const percent = (n: number, of: number) => `${((n / Math.max(1, of)) * 100).toFixed(1)}%`

/** The held-out set's expectations. */
export function heldOutFixtures(): HeldOut[] {
  return (JSON.parse(readFileSync(join(HELDOUT, 'manifest.json'), 'utf8')) as { fixtures: HeldOut[] }).fixtures
}

export async function heldOutAccuracy(): Promise<BenchRow[]> {
  const manifest = { fixtures: heldOutFixtures() }
  const now = score(buildLibrary(), manifest.fixtures)
  const old = baselineLibrary()
  const before = old ? score(old, manifest.fixtures) : null
  const describe = (s: Score) =>
    `${s.right}/${s.total} = ${percent(s.right, s.total)} right; first location in the expected file ${s.located}/${s.withFile}`
  return [
    {
      figure: '11. analysis accuracy, held-out real output',
      value: describe(now),
      baseline: before
        ? `library at ${BASELINE_COMMIT}: ${describe(before)}`
        : `library at ${BASELINE_COMMIT}: not in this clone`,
      ratio: before ? `${(now.right / Math.max(1, before.right)).toFixed(2)}x right` : '',
      budget: `>= ${REQUIRED_ACCURACY * 100}%`,
      met: now.right / now.total >= REQUIRED_ACCURACY ? 'yes' : 'no',
      ...(now.wrong.length > 0 ? { note: `misclassified: ${now.wrong.join('; ')}` } : {}),
    },
  ]
}
