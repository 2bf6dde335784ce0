// strategy.matrix expanded as GitHub's documentation expands its own examples.
import { describe, expect, it } from 'vitest'
import { expandMatrix, legName } from '../sandbox/matrix.js'

describe('matrix', () => {
  it("adds include entries to the legs whose original values they keep, else as legs of their own (GitHub's example)", () => {
    const legs = expandMatrix(
      {
        fruit: ['apple', 'pear'],
        animal: ['cat', 'dog'],
        include: [
          { color: 'green' },
          { color: 'pink', animal: 'cat' },
          { fruit: 'apple', shape: 'circle' },
          { fruit: 'banana' },
          { fruit: 'banana', animal: 'cat' },
        ],
      },
      {},
    )
    expect(legs).toEqual([
      { fruit: 'apple', animal: 'cat', color: 'pink', shape: 'circle' },
      { fruit: 'apple', animal: 'dog', color: 'green', shape: 'circle' },
      { fruit: 'pear', animal: 'cat', color: 'pink' },
      { fruit: 'pear', animal: 'dog', color: 'green' },
      { fruit: 'banana' },
      { fruit: 'banana', animal: 'cat' },
    ])
  })

  it('removes the legs an exclude entry matches, and reads vectors from expressions', () => {
    const legs = expandMatrix(
      {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
        os: '${{ fromJSON(needs.plan.outputs.os) }}',
        version: [12, 14, 16],
        environment: ['staging', 'production'],
        exclude: [
          { os: 'macos-latest', version: 12, environment: 'production' },
          { os: 'windows-latest', version: 16 },
        ],
      },
      { needs: { plan: { outputs: { os: '["macos-latest","windows-latest"]' } } } },
    )
    expect(legs).toHaveLength(9)
    expect(legs).not.toContainEqual({ os: 'macos-latest', version: 12, environment: 'production' })
    expect(legs.filter((leg) => leg.os === 'windows-latest' && leg.version === 16)).toEqual([])
  })

  it('refuses an empty vector, and names legs as GitHub shows them', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
    expect(() => expandMatrix({ check: "${{ fromJSON('[]') }}" }, {})).toThrow(
      "Matrix vector 'check' does not contain any values ([])",
    )
    const job = { id: 'verify', needs: [], outputs: {}, env: {}, steps: [] }
    expect(legName(job, { check: 'unit', shard: 2 }, {})).toBe('verify (unit, 2)')
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
    expect(legName({ ...job, name: 'check ${{ matrix.check }}' }, { check: 'lint' }, {})).toBe('check lint')
  })
})
