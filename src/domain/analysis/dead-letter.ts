/**
 * The dead letter: written when the retry budget is spent. It names the error
 * signature, the similar failures in the loop's history, short suggestions, and, when three or more
 * similar failures had no confident match, a candidate pattern for a human to review. Pure.
 */

import type { Strategy } from '../stages.js'
import type { FailureRecord } from '../state.js'
import type { PatternConfig } from './pattern-config.js'
import { isSameError, normaliseText } from './similarity.js'

export interface DeadLetterInput {
  loopId: string
  failure: FailureRecord
  history: readonly FailureRecord[]
  tried: readonly { strategy: Strategy; iteration: number; outcome: string }[]
}

export interface DeadLetterSuggestions {
  rootCause: string
  whereToLook: string
  alternative: string
}

export interface DeadLetter {
  signature: string
  similar: FailureRecord[]
  suggestions: DeadLetterSuggestions
  candidatePattern?: PatternConfig
  markdown: string
}

/** Suggestions stay under this many tokens in total (whitespace-separated words and symbols). */
export const MAX_SUGGESTION_TOKENS = 200
/** A candidate pattern is proposed at this many similar failures without a confident match. */
export const CANDIDATE_THRESHOLD = 3
const CONFIDENT = 0.7

const ADVICE: Record<string, [rootCause: string, whereToLook: string, alternative: string]> = {
  'lint-error': [
    'Rule violations the fix command cannot repair.',
    'The flagged lines and the linter config.',
    'Fix the remaining rules by hand, one rule at a time.',
  ],
  'format-error': [
    'Files the formatter would rewrite.',
    'The formatter config and ignored files.',
    'Run the formatter locally and commit its output.',
  ],
  'type-error': [
    'A type mismatch between a value and its declared type.',
    'The declarations the error names, and their callers.',
    'Change the type at its source instead of casting.',
  ],
  'syntax-error': [
    'Code that does not parse.',
    'The reported line and the one before it.',
    'Revert the last edit to the file and reapply it in smaller steps.',
  ],
  'import-not-found': [
    'A module or package that is not installed or not on the path.',
    'The import statement and the manifest (package.json, requirements, Cargo.toml).',
    'Install the dependency or fix the import path.',
  ],
  'test-failure': [
    'Behaviour that no longer meets a test expectation.',
    'The failing assertion and the code it exercises.',
    'Reproduce the single failing test locally and bisect the change.',
  ],
  'build-error': [
    'A compile or link step that fails.',
    'The first error in the build output.',
    'Build the smallest failing target on its own.',
  ],
  'dependency-conflict': [
    'Declared versions that cannot be satisfied together.',
    'The conflicting packages the resolver names.',
    'Align the versions, or relax one constraint.',
  ],
  'command-not-found': [
    'A tool the check needs is not installed.',
    'The check command and the install step.',
    'Add the tool to the install command or use npx.',
  ],
  'network-error': [
    'An external service or registry is unreachable.',
    'The host in the error and the runner network.',
    'Cache or vendor the dependency, or retry later.',
  ],
  'out-of-memory': [
    'The process needs more memory than it has.',
    'The allocation in the stack and the data size.',
    'Raise the memory limit or process the data in parts.',
  ],
  timeout: [
    'A check that hangs or is too slow for its limit.',
    'Open handles, waits and slow tests.',
    'Raise the limit or split the check.',
  ],
  'permission-error': [
    'Access refused by the system or the API.',
    'File modes, token scopes and the workflow permissions block.',
    'Grant the missing permission.',
  ],
  'merge-conflict': [
    'Concurrent changes to the same lines.',
    'The conflicted files.',
    'Resolve by hand, then resume the loop.',
  ],
  'git-error': ['A git operation was refused.', 'Branch, remote and ref state.', 'Fetch and rebase, then retry.'],
  'security-finding': [
    'A vulnerability or a secret in the change.',
    'The finding the scanner reports.',
    'Upgrade the package or remove and rotate the secret.',
  ],
  'regression-detected': [
    'A change broke something that passed in the baseline.',
    'The diff since the baseline, near the failing test.',
    'Revert the change that broke it and redo it.',
  ],
  infrastructure: [
    'A shard of a sharded check was killed or cancelled before it reported.',
    "The shard's log and the runner's memory, time and cancellation limits.",
    'Give the shards more memory or time, or split the suite into more shards.',
  ],
}

/** Builds the dead letter for a failure whose retry budget is spent. */
export function buildDeadLetter(input: DeadLetterInput): DeadLetter {
  const { failure } = input
  const similar = input.history.filter(
    (record) =>
      record !== failure &&
      !(record.iteration === failure.iteration && record.check === failure.check && record.at === failure.at) &&
      (record.signature === failure.signature ||
        (record.pattern === failure.pattern && isSameError(record.tokens, failure.tokens))),
  )
  const suggestions = suggest(input, similar)
  const unmatched = [failure, ...similar].filter((r) => r.pattern === null || (r.confidence ?? 0) < CONFIDENT)
  const candidatePattern = unmatched.length >= CANDIDATE_THRESHOLD ? proposePattern(failure, unmatched) : undefined
  const letter: DeadLetter = { signature: failure.signature, similar, suggestions, markdown: '' }
  if (candidatePattern) letter.candidatePattern = candidatePattern
  letter.markdown = renderMarkdown(input, letter)
  return letter
}

const UNKNOWN_ADVICE: [rootCause: string, whereToLook: string, alternative: string] = [
  'An error no known pattern matches.',
  'The first error line of the check output.',
  'Ask a human to classify it; add a pattern for it.',
]

/** The pattern's advice alone, without counts or quotes (the report says those once, elsewhere). */
export function failureAdvice(pattern: string | null): DeadLetterSuggestions {
  const [rootCause, whereToLook, alternative] = ADVICE[pattern ?? ''] ?? UNKNOWN_ADVICE
  return { rootCause, whereToLook, alternative }
}

function suggest(input: DeadLetterInput, similar: readonly FailureRecord[]): DeadLetterSuggestions {
  const { failure, tried } = input
  const advice = ADVICE[failure.pattern ?? ''] ?? UNKNOWN_ADVICE
  const firstLine = firstErrorLine(failure.error)
  const triedList = [...new Set(tried.map((t) => t.strategy))].join(', ')
  const rootCause = `${advice[0]}${similar.length > 0 ? ` Seen ${similar.length + 1} times in this loop.` : ''}`
  const whereToLook = `${advice[1]}${firstLine ? ` First error: ${firstLine}` : ''} (check ${failure.check}).`
  const alternative = `${advice[2]}${triedList ? ` Already tried: ${triedList}.` : ''}`
  return limitTokens({ rootCause, whereToLook, alternative }, MAX_SUGGESTION_TOKENS - 1)
}

function limitTokens(suggestions: DeadLetterSuggestions, budget: number): DeadLetterSuggestions {
  const keys = ['rootCause', 'whereToLook', 'alternative'] as const
  const limited = { ...suggestions }
  let total = keys.reduce((sum, key) => sum + countTokens(limited[key]), 0)
  for (const key of ['whereToLook', 'rootCause', 'alternative'] as const) {
    if (total <= budget) break
    const words = limited[key].split(/\s+/)
    const keep = Math.max(4, words.length - (total - budget))
    total -= words.length - keep
    limited[key] = `${words.slice(0, keep).join(' ')}…`
  }
  return limited
}

/** A rough token count: words plus standalone punctuation runs (a conservative stand-in for a tokenizer). */
export function countTokens(text: string): number {
  return (text.match(/[A-Za-z0-9]+|[^\sA-Za-z0-9]+/g) ?? []).length
}

function firstErrorLine(error: string): string {
  const lines = error.split(/\r?\n/).map((l) => l.trim())
  const line = lines.find((l) => /error|fail|fatal|exception/i.test(l)) ?? lines.find((l) => l.length > 0) ?? ''
  return line.length > 120 ? `${line.slice(0, 120)}…` : line
}

/**
 * A candidate pattern from failures no pattern matched confidently: literal signals are the longest
 * placeholder-free fragments of the normalised lines every failure shares, in the original spelling.
 */
function proposePattern(failure: FailureRecord, records: readonly FailureRecord[]): PatternConfig | undefined {
  const lineSets = records.map(
    (r) =>
      new Set(
        r.error
          .split(/\r?\n/)
          .map((l) => normaliseText(l).trim())
          .filter(Boolean),
      ),
  )
  const [first, ...rest] = lineSets
  if (!first) return undefined
  const common = [...first].filter((line) => rest.every((set) => set.has(line)))
  const signals: string[] = []
  for (const line of common) {
    const fragment = line
      .split(/<(?:time|duration|hash|path|n)>/)
      .map((part) => part.trim())
      .sort((a, b) => b.length - a.length)[0]
    if (!fragment || fragment.length < 8) continue
    const original = findOriginal(failure.error, fragment)
    if (!original || !records.every((r) => r.error.includes(original)) || signals.includes(original)) continue
    signals.push(original)
    if (signals.length >= 3) break
  }
  if (signals.length === 0) return undefined
  const hash = failure.signature.split(':').pop() ?? '0'
  return {
    id: `candidate-${hash}`,
    description: `Proposed from ${records.length} similar failures of check ${failure.check} with no confident match; review before use.`,
    signals,
    anchors: [],
    kinds: [],
    strategy: 'analyze_then_fix',
    alternates: ['context_expand'],
    retryable: true,
    locations: [],
  }
}

function findOriginal(text: string, lowerFragment: string): string | undefined {
  const index = text.toLowerCase().indexOf(lowerFragment)
  return index === -1 ? undefined : text.slice(index, index + lowerFragment.length)
}

function renderMarkdown(input: DeadLetterInput, letter: DeadLetter): string {
  const { failure } = input
  const fence = (text: string) => `\`\`\`text\n${text.replace(/```/g, "'''").slice(0, 2000)}\n\`\`\``
  const lines = [
    `# Dead letter: ${input.loopId}`,
    '',
    `- Signature: \`${letter.signature}\``,
    `- Check: \`${failure.check}\` at stage ${failure.stage}, iteration ${failure.iteration}`,
    `- Pattern: ${failure.pattern ?? 'none'}${failure.confidence === null ? '' : ` (confidence ${failure.confidence})`}`,
    '',
    '## Last failure',
    '',
    fence(failure.error),
    '',
    '## Tried',
    '',
    ...(input.tried.length > 0
      ? input.tried.map((t) => `- iteration ${t.iteration}: \`${t.strategy}\` -> ${t.outcome}`)
      : ['- nothing yet']),
    '',
    '## Suggestions',
    '',
    `- Likely root cause: ${letter.suggestions.rootCause}`,
    `- Where to look: ${letter.suggestions.whereToLook}`,
    `- Alternative: ${letter.suggestions.alternative}`,
    '',
    `## Similar failures (${letter.similar.length})`,
    '',
    ...(letter.similar.length > 0
      ? letter.similar.slice(0, 20).map((r) => `- iteration ${r.iteration}, check \`${r.check}\`: \`${r.signature}\``)
      : ['- none']),
  ]
  if (letter.candidatePattern) {
    lines.push(
      '',
      '## Candidate pattern (for review)',
      '',
      'Add it to the `patterns` of `.github/loop.yml` after review:',
      '',
      '```yaml',
      `- id: ${letter.candidatePattern.id}`,
      '  signals:',
      ...letter.candidatePattern.signals.map((s) => `    - ${JSON.stringify(s)}`),
      `  strategy: ${letter.candidatePattern.strategy}`,
      '```',
    )
  }
  return `${lines.join('\n')}\n`
}
