/**
 * Promoting dead letters' candidate patterns into the repository's own patterns: which candidates are
 * new, and which the repository already has (by id, or by the very same signals under another id).
 * Pure; the CLI reads and writes the files (`loop-controller patterns promote`).
 */
import type { PatternConfig } from './pattern-config.js'

/** A candidate pattern and the dead letter's file that proposed it. */
export interface Candidate {
  pattern: PatternConfig
  source: string
}

export interface PromotionPlan<C extends Candidate = Candidate> {
  add: C[]
  /** Candidates left out, each with the reason. */
  skipped: { candidate: C; reason: string }[]
}

const signalKey = (pattern: PatternConfig) => JSON.stringify([...pattern.signals].sort())

/**
 * Splits `candidates` into those to add and those the repository has: the same id, or the same set of
 * signals (the same failure under another name). Two dead letters proposing one id add it once.
 */
export function planPromotion<C extends Candidate>(
  existing: readonly PatternConfig[],
  candidates: readonly C[],
): PromotionPlan<C> {
  const plan: PromotionPlan<C> = { add: [], skipped: [] }
  const known = [...existing]
  for (const candidate of candidates) {
    const { pattern } = candidate
    const sameId = known.find((p) => p.id === pattern.id)
    const sameSignals = known.find((p) => signalKey(p) === signalKey(pattern))
    if (sameId) {
      plan.skipped.push({ candidate, reason: `'${pattern.id}' is already there` })
    } else if (sameSignals) {
      plan.skipped.push({ candidate, reason: `'${sameSignals.id}' there has the same signals` })
    } else {
      plan.add.push(candidate)
      known.push(pattern)
    }
  }
  return plan
}
