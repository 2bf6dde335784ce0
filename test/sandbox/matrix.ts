// `strategy.matrix` as GitHub expands it: the product of its vectors, minus `exclude`, then each
// `include` entry added to every leg whose original values it does not change, or as a leg of its own.
import { type ExpressionContext, evaluateValue, interpolate } from './expressions.js'
import type { JobSpec } from './workflow-file.js'

type Leg = Record<string, unknown>

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** The legs of a matrix (its vectors may be expressions, e.g. `fromJSON(needs.plan.outputs.checks)`). */
export function expandMatrix(matrix: unknown, context: ExpressionContext): Leg[] {
  if (!isRecord(matrix)) throw new Error(`the matrix must be a mapping; got ${JSON.stringify(matrix)}`)
  const vectors: [string, unknown[]][] = []
  let include: unknown = []
  let exclude: unknown = []
  for (const [key, raw] of Object.entries(matrix)) {
    const value = evaluateValue(raw, context)
    if (key === 'include') include = value
    else if (key === 'exclude') exclude = value
    else {
      if (!Array.isArray(value) || value.length === 0) {
        throw new Error(`Matrix vector '${key}' does not contain any values (${JSON.stringify(value)})`)
      }
      vectors.push([key, value])
    }
  }
  if (!Array.isArray(include) || !Array.isArray(exclude)) throw new Error('matrix include and exclude must be lists')
  let legs: Leg[] = vectors.length === 0 ? [] : [{}]
  for (const [key, values] of vectors) legs = legs.flatMap((leg) => values.map((value) => ({ ...leg, [key]: value })))
  legs = legs.filter(
    (leg) => !exclude.some((entry) => isRecord(entry) && Object.entries(entry).every(([k, v]) => same(leg[k], v))),
  )
  const originalKeys = new Set(vectors.map(([key]) => key))
  const extras: Leg[] = []
  for (const entry of include) {
    if (!isRecord(entry)) throw new Error(`a matrix include entry must be a mapping; got ${JSON.stringify(entry)}`)
    let added = false
    for (const leg of legs) {
      const keepsOriginals = Object.entries(entry).every(([k, v]) => !originalKeys.has(k) || same(leg[k], v))
      if (keepsOriginals) {
        Object.assign(leg, entry)
        added = true
      }
    }
    if (!added) extras.push({ ...entry })
  }
  const all = [...legs, ...extras]
  if (all.length === 0) throw new Error('the matrix has no legs')
  if (all.length > 256) throw new Error(`a matrix may make at most 256 jobs; this one makes ${all.length}`)
  return all
}

/** A leg's job name as GitHub shows it: the interpolated `name:`, else `id (value, value)`. */
export function legName(job: JobSpec, leg: Leg | undefined, context: ExpressionContext): string {
  if (job.name?.includes('${{')) return interpolate(job.name, { ...context, matrix: leg ?? {} })
  const base = job.name ?? job.id
  if (!leg) return base
  const values = Object.values(leg).map((value) =>
    isRecord(value) || Array.isArray(value) ? JSON.stringify(value) : String(value),
  )
  return `${base} (${values.join(', ')})`
}
