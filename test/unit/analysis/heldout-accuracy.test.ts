/**
 * The pattern library's accuracy on real tool output it was not written against: the held-out set of
 * test/fixtures-heldout (captured by scripts/capture-heldout.sh after the patterns were written). The
 * figure is printed; below 95% the test fails, so a pattern change that costs accuracy is seen at once
 * (bench figure 11 prints the same figure beside the old library's). The set must never be used to tune
 * the patterns.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { analyzeText, buildLibrary } from '../../../src/domain/analysis/index.js'

interface HeldOut {
  file: string
  pattern: string
  firstFile?: string
}
const root = join(import.meta.dirname, '../../fixtures-heldout')
const manifest = JSON.parse(readFileSync(join(root, 'manifest.json'), 'utf8')) as { fixtures: HeldOut[] }
/** The least share of held-out outputs whose pattern must be right. */
const REQUIRED_ACCURACY = 0.95

describe('accuracy on held-out real tool output', () => {
  it(`classifies at least ${REQUIRED_ACCURACY * 100}% of the held-out outputs correctly`, () => {
    const library = buildLibrary()
    const wrong: string[] = []
    let located = 0
    let withFile = 0
    for (const fixture of manifest.fixtures) {
      const analysis = analyzeText(readFileSync(join(root, fixture.file), 'utf8'), library)
      if (analysis.pattern !== fixture.pattern) wrong.push(`${fixture.file}: got ${analysis.pattern ?? 'no match'}`)
      if (fixture.firstFile !== undefined) {
        withFile++
        if (analysis.locations[0]?.file.endsWith(fixture.firstFile)) located++
      }
    }
    const total = manifest.fixtures.length
    const accuracy = (total - wrong.length) / total
    const percent = (n: number) => `${(n * 100).toFixed(1)}%`
    console.log(
      `held-out pattern accuracy: ${total - wrong.length}/${total} = ${percent(accuracy)}; ` +
        `first location in the expected file: ${located}/${withFile} = ${percent(located / withFile)}` +
        (wrong.length > 0 ? `\nmisclassified:\n  ${wrong.join('\n  ')}` : ''),
    )
    expect(total).toBeGreaterThanOrEqual(30)
    expect(accuracy, wrong.join('\n')).toBeGreaterThanOrEqual(REQUIRED_ACCURACY)
  })
})
