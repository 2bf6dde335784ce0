/** Failure-pattern analysis: the public surface the engine and the CLI use. */
export { type Analysis, type AnalyzerOptions, analyzeText, StreamingAnalyzer } from './analyzer.js'
export {
  buildDeadLetter,
  CANDIDATE_THRESHOLD,
  countTokens,
  type DeadLetter,
  type DeadLetterInput,
  type DeadLetterSuggestions,
  failureAdvice,
  MAX_SUGGESTION_TOKENS,
} from './dead-letter.js'
export {
  type DeadLetterLesson,
  type DeadLetterRecord,
  deadLetterRecord,
  isSimilarToDeadLetter,
  LESSON_LIMITS,
  lessonsFor,
  parseDeadLetterRecord,
  renderLessons,
} from './dead-letter-lessons.js'
export { type FileChange, type GuardFinding, type GuardRules, inspectProtectedChanges, matchGlob } from './guard.js'
export { type JUnitCase, MAX_JUNIT_CASES, parseJUnit } from './junit.js'
export {
  buildLibrary,
  type CompiledLocation,
  type CompiledPattern,
  type CompiledSignal,
  compilePattern,
  libraryOf,
  type PatternLibrary,
  requiredLiteral,
} from './library.js'
export { type AggregatedMetrics, aggregateMetrics } from './metrics.js'
export { type PatternConfig, PatternError } from './pattern-config.js'
export {
  detectRegressions,
  type RegressionTally,
  regressionEnabled,
  tallyRegressions,
  type Verdicts,
} from './regression.js'
export { type AnalysisExtras, type ConfidenceTier, NO_MATCH_BELOW, tierOf } from './scoring.js'
export { errorSignature, isSameError, normaliseText, normaliseTokens, tokenOverlap } from './similarity.js'
