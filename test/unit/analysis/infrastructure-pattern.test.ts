// The `infrastructure` pattern anchors on the controller's no-verdict line in both of its shapes: a shard
// of a sharded check, and a fan-out verify leg of any check (sharded or not). Anchored, it outranks the
// partial output around the line (a failing test, a build step).
import { describe, expect, it } from 'vitest'
import { analyzeText, buildLibrary } from '../../../src/domain/analysis/index.js'
import { noVerdictLine as legLine } from '../../../src/domain/fan-out.js'
import { noVerdictLine as shardLine } from '../../../src/domain/shards.js'

const library = buildLibrary()
const infrastructure = library.byId('infrastructure')
const anchored = (line: string) => infrastructure?.anchors.some((anchor) => anchor.regex?.test(line)) ?? false
const JEST_FAILING =
  'FAIL test/a.test.js\n  ● adds\n    expect(received).toBe(expected)\nTests:       1 failed, 3 passed, 4 total\n'

describe('the infrastructure pattern', () => {
  it.each([
    { shape: 'a shard of a sharded check', line: shardLine('test', 2, 4, 'killed by SIGKILL') },
    { shape: 'a fan-out leg of an unsharded check', line: legLine('unit', 'no verdict was uploaded') },
    { shape: 'a fan-out leg of a shard', line: legLine('test shard 3/4', 'its verify job concluded cancelled') },
    { shape: 'a check name with dots and dashes', line: legLine('e2e.web-1', 'not trusted') },
  ])('anchors on the line of $shape, and wins over the test output around it', ({ line }) => {
    expect(anchored(line), line).toBe(true)
    for (const text of [`${line}\n`, `${JEST_FAILING}${line}\n`, `${line}\n${JEST_FAILING}`]) {
      expect(analyzeText(text, library, { kind: 'test' }).pattern, text).toBe('infrastructure')
    }
  })

  it.each([
    { line: 'loop-controller: no verdict from: nothing named' },
    { line: 'see loop-controller: no verdict from unit: quoted in the middle of a line' },
    { line: 'loop-controller: no verdict from two words: a name with a space is no check' },
  ])('is no anchor for a line of another shape: $line', ({ line }) => {
    expect(anchored(line)).toBe(false)
  })
})
