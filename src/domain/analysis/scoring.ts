/**
 * Scoring: how strongly each pattern matched a check's output, the confidence that follows, and the
 * pattern that wins. Pure.
 */
import type { CheckKind } from '../stages.js'
import type { CompiledPattern } from './library.js'
import type { Matcher } from './scan-tables.js'

/** How sure the analyzer is of its match, from confident down to no match. */
export type ConfidenceTier = 'confident' | 'review' | 'consider-escalation' | 'none'

/** Facts the controller knows besides the output. */
export interface AnalysisExtras {
  timedOut?: boolean
  exitCode?: number | null
  spawnError?: string
}

/** Below this confidence there is no match and the strategy is `analyze_then_fix`. */
export const NO_MATCH_BELOW = 0.3
/** How much one matched signal adds to the evidence; an anchor weighs three signals. */
export const ANCHOR_WEIGHT = 3
/** confidence = 1 - EVIDENCE_BASE ^ evidence (one signal 0.4, two 0.64, an anchor 0.78). */
export const EVIDENCE_BASE = 0.6

/** How strongly one pattern matched: its matched signals and anchors, and the confidence that follows. */
export interface PatternScore {
  signals: number
  anchors: number
  total: number
  evidence: number
  confidence: number
  extra: number
}

/**
 * The score of every pattern: its matched signals and anchors, boosted by what the controller knows
 * (an exit code, a spawn error, a timeout), weighed by whether the pattern applies to the check's kind.
 */
export function scorePatterns(
  patterns: readonly CompiledPattern[],
  matchers: readonly Matcher[],
  matched: Uint8Array,
  kind: CheckKind | undefined,
  extra: AnalysisExtras,
): PatternScore[] {
  const scores = patterns.map(
    (): PatternScore => ({ signals: 0, anchors: 0, total: 0, evidence: 0, confidence: 0, extra: 0 }),
  )
  matchers.forEach((matcher, index) => {
    if (!matcher.scored) return
    const score = scores[matcher.pattern] as PatternScore
    if (!matcher.anchor) score.total++
    if (matched[index] !== 1) return
    if (matcher.anchor) score.anchors++
    else score.signals++
  })
  const boost = (id: string, evidence: number) => {
    const index = patterns.findIndex((p) => p.id === id)
    if (index >= 0) (scores[index] as PatternScore).extra += evidence
  }
  if (extra.exitCode === 137) boost('out-of-memory', ANCHOR_WEIGHT)
  if (extra.exitCode === 127) boost('command-not-found', 1)
  if (extra.exitCode === 126) boost('permission-error', 1)
  if (extra.spawnError && /\bENOENT\b/.test(extra.spawnError)) boost('command-not-found', ANCHOR_WEIGHT)
  if (extra.spawnError && /\bEACCES\b/.test(extra.spawnError)) boost('permission-error', ANCHOR_WEIGHT)
  patterns.forEach((pattern, index) => {
    const score = scores[index] as PatternScore
    let evidence = score.signals + ANCHOR_WEIGHT * score.anchors + score.extra
    if (evidence > 0 && kind && kind !== 'custom' && pattern.kinds.length > 0) {
      evidence = pattern.kinds.includes(kind) ? evidence + 1 : evidence / 2
    }
    score.evidence = evidence
    const ratio = score.total > 0 ? score.signals / score.total : 0
    score.confidence = Math.min(1, Math.max(ratio, 1 - EVIDENCE_BASE ** evidence))
  })
  if (extra.timedOut) {
    const index = patterns.findIndex((p) => p.id === 'timeout')
    if (index >= 0) {
      const score = scores[index] as PatternScore
      score.confidence = 1
      score.anchors = Number.MAX_SAFE_INTEGER
    }
  }
  return scores
}

/** The index of the winning pattern (highest confidence, then most anchors; earlier wins a tie), or -1. */
export function bestPattern(scores: readonly PatternScore[]): number {
  let best = -1
  for (let i = 0; i < scores.length; i++) {
    const candidate = scores[i] as PatternScore
    const current = best === -1 ? undefined : (scores[best] as PatternScore)
    if (candidate.confidence <= 0) continue
    if (
      !current ||
      candidate.confidence > current.confidence ||
      (candidate.confidence === current.confidence && candidate.anchors > current.anchors)
    ) {
      best = i
    }
  }
  return best
}

/**
 * The winner after outranking: when the best pattern is listed in the `outranks` of a pattern that
 * matched an anchor (and reached the no-match floor), the most confident such pattern wins instead.
 * A specific cause beats the broader symptom printed around it (a test file that fails to import is
 * `import-not-found`, not `test-failure`; a compiler error under `make` is not the `make` line).
 */
export function outrankedWinner(
  patterns: readonly Pick<CompiledPattern, 'id' | 'outranks'>[],
  scores: readonly PatternScore[],
  best: number,
): number {
  let winner = best
  for (let round = 0; round < patterns.length && winner !== -1; round++) {
    const beaten = (patterns[winner] as Pick<CompiledPattern, 'id'>).id
    let next = -1
    for (let i = 0; i < patterns.length; i++) {
      const score = scores[i] as PatternScore
      if (i === winner || score.anchors === 0 || score.confidence < NO_MATCH_BELOW) continue
      if (!(patterns[i] as Pick<CompiledPattern, 'outranks'>).outranks.includes(beaten)) continue
      if (next === -1 || score.confidence > (scores[next] as PatternScore).confidence) next = i
    }
    if (next === -1) break
    winner = next
  }
  return winner
}

/** The tier of a confidence. */
export function tierOf(confidence: number): ConfidenceTier {
  if (confidence >= 0.7) return 'confident'
  if (confidence >= 0.5) return 'review'
  if (confidence >= NO_MATCH_BELOW) return 'consider-escalation'
  return 'none'
}

export function roundConfidence(value: number): number {
  return Math.round(value * 100) / 100
}
