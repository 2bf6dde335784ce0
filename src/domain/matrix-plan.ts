/**
 * The verification matrix's plan: the `needs` graph of the checks, checked for unknown names and
 * cycles, put in an order that runs `pre: true` checks first. Pure: no I/O.
 */
import type { CheckConfig } from './loop-config.js'

/** The part of a check the plan looks at. */
export type PlannedCheck = Pick<CheckConfig, 'name' | 'needs' | 'pre'>

export interface MatrixPlan {
  /** Check names in an order where every check comes after what it needs; pre checks first. */
  order: string[]
  /**
   * Waves that could run one after the other, each wave's checks in parallel: the pre checks' waves
   * first, then the others'. Within a group, a check sits one wave after the latest of its needs.
   */
  levels: string[][]
}

/** A matrix that cannot be planned; the message names the checks at fault and what is expected. */
export class MatrixPlanError extends Error {
  override name = 'MatrixPlanError'
  /**
   * `problem`: what is wrong, without the key; `at`: the check (its index in the list) and the key at
   * fault, so a config's loader can point at its line.
   */
  constructor(
    readonly problem: string,
    readonly at: { index: number; key: 'name' | 'needs' },
    keyText: string,
  ) {
    super(`${keyText}: ${problem}`)
  }
}

/**
 * Plans the matrix. Throws `MatrixPlanError` for a duplicate name, an unknown `needs` name, a pre check
 * that needs a non-pre one, or a cycle (named as `a -> b -> a`).
 */
export function planMatrix(checks: readonly PlannedCheck[]): MatrixPlan {
  const byName = new Map<string, PlannedCheck>()
  for (const [index, check] of checks.entries()) {
    if (byName.has(check.name)) {
      throw new MatrixPlanError(
        `the name '${check.name}' is used twice; each check needs its own name`,
        { index, key: 'name' },
        'checks',
      )
    }
    byName.set(check.name, check)
  }
  for (const [index, check] of checks.entries()) {
    const at = { index, key: 'needs' } as const
    for (const need of check.needs) {
      const needed = byName.get(need)
      if (!needed) {
        const known = [...byName.keys()].map((n) => `'${n}'`).join(', ')
        throw new MatrixPlanError(
          `unknown check '${need}'; expected the name of another check (${known})`,
          at,
          `checks.${check.name}.needs`,
        )
      }
      if (check.pre && !needed.pre) {
        throw new MatrixPlanError(
          `the pre check '${check.name}' needs '${need}', which is not a pre check; ` +
            `pre checks run first, so they may only need other pre checks`,
          at,
          `checks.${check.name}.needs`,
        )
      }
    }
  }
  const cycle = findCycle(checks, byName)
  if (cycle) {
    throw new MatrixPlanError(
      `the needs form a cycle: ${cycle.join(' -> ')}; expected needs that lead back to no check`,
      { index: checks.findIndex((check) => check.name === cycle[0]), key: 'needs' },
      'checks',
    )
  }

  const depth = new Map<string, number>()
  const depthOf = (check: PlannedCheck): number => {
    const known = depth.get(check.name)
    if (known !== undefined) return known
    let value = 0
    for (const need of check.needs) value = Math.max(value, depthOf(byName.get(need)!) + 1)
    depth.set(check.name, value)
    return value
  }
  const levels: string[][] = []
  for (const group of [checks.filter((c) => c.pre), checks.filter((c) => !c.pre)]) {
    const waves: string[][] = []
    for (const check of group) {
      const wave = depthOf(check)
      while (waves.length <= wave) waves.push([])
      waves[wave]!.push(check.name)
    }
    levels.push(...waves.filter((w) => w.length > 0))
  }
  return { order: levels.flat(), levels }
}

/** The first cycle found by a depth-first walk, as names with the first repeated at the end. */
function findCycle(checks: readonly PlannedCheck[], byName: Map<string, PlannedCheck>): string[] | null {
  const done = new Set<string>()
  const path: string[] = []
  const onPath = new Set<string>()
  const visit = (name: string): string[] | null => {
    if (onPath.has(name)) return [...path.slice(path.indexOf(name)), name]
    if (done.has(name)) return null
    onPath.add(name)
    path.push(name)
    for (const need of byName.get(name)?.needs ?? []) {
      const cycle = visit(need)
      if (cycle) return cycle
    }
    path.pop()
    onPath.delete(name)
    done.add(name)
    return null
  }
  for (const check of checks) {
    const cycle = visit(check.name)
    if (cycle) return cycle
  }
  return null
}
