/** Failure-pattern analysis (DESIGN.md section 4): the public surface the engine and the CLI use. */
export {
  type Analysis,
  type AnalysisExtras,
  type AnalyzerOptions,
  type ConfidenceTier,
  NO_MATCH_BELOW,
  StreamingAnalyzer,
  analyzeText,
  tierOf,
} from './analyzer.js'
export {
  type CompiledLocation,
  type CompiledPattern,
  type CompiledSignal,
  type PatternLibrary,
  PatternError,
  buildLibrary,
  compilePattern,
  libraryOf,
  requiredLiteral,
} from './library.js'
export { errorSignature, isSameError, normaliseText, normaliseTokens, tokenOverlap } from './similarity.js'
