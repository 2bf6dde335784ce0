import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MatrixPlanError, type PlannedCheck, planMatrix } from '../../src/domain/matrix-plan.js'

const check = (name: string, needs: string[] = [], pre = false): PlannedCheck => ({ name, needs, pre })

describe('planMatrix', () => {
  const table: Array<{ title: string; checks: PlannedCheck[]; levels: string[][] }> = [
    { title: 'independent checks share one wave', checks: [check('a'), check('b')], levels: [['a', 'b']] },
    {
      title: 'a chain makes one wave per link',
      checks: [check('test', ['build']), check('build'), check('e2e', ['test'])],
      levels: [['build'], ['test'], ['e2e']],
    },
    {
      title: 'a diamond joins after both sides',
      checks: [check('d', ['b', 'c']), check('b', ['a']), check('c', ['a']), check('a')],
      levels: [['a'], ['b', 'c'], ['d']],
    },
    {
      title: 'pre checks come first, in their own waves',
      checks: [check('test'), check('format', [], true), check('types', ['format'], true), check('lint')],
      levels: [['format'], ['types'], ['test', 'lint']],
    },
    { title: 'an empty matrix is an empty plan', checks: [], levels: [] },
  ]

  it.each(table)('$title', ({ checks, levels }) => {
    const plan = planMatrix(checks)
    expect(plan.levels).toEqual(levels)
    expect(plan.order).toEqual(levels.flat())
  })

  const errors: Array<{ title: string; checks: PlannedCheck[]; message: string }> = [
    {
      title: 'an unknown need',
      checks: [check('test', ['bulid']), check('build')],
      message: "checks.test.needs: unknown check 'bulid'; expected the name of another check ('test', 'build')",
    },
    {
      title: 'a two-check cycle',
      checks: [check('a', ['b']), check('b', ['a'])],
      message: 'checks: the needs form a cycle: a -> b -> a; expected needs that lead back to no check',
    },
    {
      title: 'a longer cycle behind a sound check',
      checks: [check('x'), check('a', ['x', 'b']), check('b', ['c']), check('c', ['a'])],
      message: 'the needs form a cycle: a -> b -> c -> a',
    },
    { title: 'a check that needs itself', checks: [check('a', ['a'])], message: 'cycle: a -> a' },
    { title: 'a duplicate name', checks: [check('a'), check('a')], message: "the name 'a' is used twice" },
    {
      title: 'a pre check that needs a later one',
      checks: [check('fmt', ['build'], true), check('build')],
      message: "the pre check 'fmt' needs 'build', which is not a pre check",
    },
  ]

  it.each(errors)('refuses $title with a message naming it', ({ checks, message }) => {
    expect(() => planMatrix(checks)).toThrow(MatrixPlanError)
    expect(() => planMatrix(checks)).toThrow(message)
  })

  it('puts every check after its needs and every pre check before the rest (any acyclic graph)', () => {
    const graph = fc.integer({ min: 1, max: 12 }).chain((size) =>
      fc.tuple(
        fc.array(fc.boolean(), { minLength: size, maxLength: size }),
        // Needs only point to earlier indices, so the graph is acyclic; names are shuffled below.
        fc.array(fc.array(fc.nat(), { maxLength: 3 }), { minLength: size, maxLength: size }),
        fc.shuffledSubarray([...Array(size).keys()], { minLength: size, maxLength: size }),
      ),
    )
    fc.assert(
      fc.property(graph, ([preFlags, needIndices, order]) => {
        const size = preFlags.length
        // A check is pre only when all it needs is pre, so the input is always valid.
        const pre: boolean[] = []
        const checks = order.map((i) => {
          const needs = [...new Set((needIndices[i] ?? []).filter((n) => n < i))]
          return { i, needs }
        })
        for (let i = 0; i < size; i++) {
          const needs = checks.find((c) => c.i === i)!.needs
          pre[i] = (preFlags[i] ?? false) && needs.every((n) => pre[n])
        }
        const planned = checks.map(({ i, needs }) =>
          check(
            `c${i}`,
            needs.map((n) => `c${n}`),
            pre[i],
          ),
        )
        const plan = planMatrix(planned)
        expect([...plan.order].sort()).toEqual(planned.map((c) => c.name).sort())
        const position = new Map(plan.order.map((name, index) => [name, index]))
        for (const c of planned) {
          for (const need of c.needs) expect(position.get(need)!).toBeLessThan(position.get(c.name)!)
          if (c.pre) {
            for (const other of planned.filter((o) => !o.pre)) {
              expect(position.get(c.name)!).toBeLessThan(position.get(other.name)!)
            }
          }
        }
      }),
    )
  })
})
