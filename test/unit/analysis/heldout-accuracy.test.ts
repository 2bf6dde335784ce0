/**
 * The pattern library's accuracy on real tool output it was not written against: the held-out set of
 * test/fixtures-heldout (captured by scripts/capture-heldout.sh after the patterns were written). The
 * figure is printed; below 95% the test fails, so a pattern change that costs accuracy is seen at once
 * (bench figure 11 prints the same figure beside the old library's). The set must never be used to tune
 * the patterns.
 */
import { describe, expect, it } from 'vitest'
import { heldOutFixtures, REQUIRED_ACCURACY, score } from '../../../bench/heldout-accuracy.js'
import { buildLibrary } from '../../../src/domain/analysis/index.js'

describe('accuracy on held-out real tool output', () => {
  it(`classifies at least ${REQUIRED_ACCURACY * 100}% of the held-out outputs correctly`, () => {
    const { right, total, located, withFile, wrong } = score(buildLibrary(), heldOutFixtures())
    const accuracy = right / total
    const percent = (n: number) => `${(n * 100).toFixed(1)}%`
    console.log(
      `held-out pattern accuracy: ${right}/${total} = ${percent(accuracy)}; ` +
        `first location in the expected file: ${located}/${withFile} = ${percent(located / withFile)}` +
        (wrong.length > 0 ? `\nmisclassified:\n  ${wrong.join('\n  ')}` : ''),
    )
    expect(total).toBeGreaterThanOrEqual(30)
    expect(accuracy, wrong.join('\n')).toBeGreaterThanOrEqual(REQUIRED_ACCURACY)
  })
})
