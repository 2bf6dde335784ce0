/**
 * What the work command is told (the work command contract, README "Work command contract"):
 * the same content as markdown (`LOOP_PROMPT_FILE`) and JSON (`LOOP_CONTEXT_FILE`). Pure.
 */
import {
  type DeadLetterLesson,
  type DeadLetterRecord,
  lessonsFor,
  renderLessons,
} from './analysis/dead-letter-lessons.js'
import { renderCodeSections } from './code-context/render.js'
import type { ChangesSince, ContextSelection } from './code-context/select.js'
import { type LoopTask, renderTask } from './loop-task.js'
import type { Stage, Strategy } from './stages.js'
import type { Location, LoopState } from './state.js'

export interface FailureForAgent {
  check: string
  kind: string
  pattern: string | null
  confidence: number | null
  strategy: Strategy
  locations: Location[]
  excerpt: string
  hint?: string
  /** Passed at the baseline and fails now. */
  regression?: boolean
  /** The analysis's error signature (`{pattern}:{ext}:{hash}`), to find an earlier loop's dead letter. */
  signature?: string
}

export interface CodeSnippet {
  file: string
  startLine: number
  endLine: number
  text: string
  /** Why it is shown ('around the failure', 'definition of `name`', …). */
  why?: string
}

export interface WorkContext {
  loopId: string
  goal: string
  /** The issue or pull request the loop started from: quoted, untrusted text. */
  task: LoopTask | null
  iteration: number
  maxIterations: number
  stage: Stage
  capability: string | null
  strategy: Strategy | null
  hint: string
  /** The failure this iteration should address first (the first failing required check). */
  failure: FailureForAgent | null
  /** Every failing check of the last verification. */
  failures: FailureForAgent[]
  tried: { iteration: number; strategy: Strategy; outcome: string }[]
  /** What the dead letters of failures like `failure` said and what was tried there (bounded). */
  lessons: DeadLetterLesson[]
  codeContext: CodeSnippet[]
  /** The attempt's context level: each attempt on the same failure is shown more (code-context/select.ts). */
  attempt: number
  /** What this attempt shows that the previous one did not. */
  contextAdded: string[]
  /** What the prompt's size bound left out. */
  contextCut: string[]
  /** The changes since the check last passed (or since the loop started), from the second attempt. */
  changes: ChangesSince | null
  session: string | null
}

const STRATEGY_HINTS: Record<Strategy, string> = {
  // The work runs on auto_fix only when no fix command covered the failure: it is the agent's to fix.
  auto_fix:
    "A tool could fix this failure (a formatter, a linter's fix mode), but no fix command of the loop covered it: fix it yourself, with the tool's own fix mode where the project has one.",
  context_expand:
    'Read the code around each location below before changing anything; the failure is about how this code fits with the code it calls or is called by.',
  analyze_then_fix:
    'Find the root cause first: read the failure and the code around it, say what is wrong, then make the smallest change that fixes it. Do not weaken or skip tests.',
  dependency_check:
    'A module or command is missing. Check the import path or package name; install or declare the dependency, or fix the path.',
  retry_with_backoff: 'The failure looked transient; the checks are re-run unchanged.',
  escalate: 'This failure needs a person.',
}

/** The hint for a strategy, with the pattern's own hint when it has one. */
export function strategyHint(strategy: Strategy | null, patternHint?: string): string {
  const base = strategy ? STRATEGY_HINTS[strategy] : 'Work toward the goal; the checks below judge the result.'
  return patternHint ? `${base} ${patternHint}` : base
}

export function buildWorkContext(input: {
  state: LoopState
  stage: Stage
  capability: string | null
  strategy: Strategy | null
  failures: FailureForAgent[]
  codeContext: CodeSnippet[]
  /** The selected code for this attempt; overrides `codeContext` when given. */
  selection?: ContextSelection
  /** The dead letters' records of this loop and the loops beside it, searched for failures like this one. */
  deadLetters?: readonly DeadLetterRecord[]
}): WorkContext {
  const { state } = input
  const found = input.failures.find((f) => f.strategy !== 'auto_fix') ?? input.failures[0] ?? null
  // The failure this attempt addresses carries the attempt's strategy, not only its pattern's proposal.
  const primary = found && input.strategy ? { ...found, strategy: input.strategy } : found
  const failures = input.failures.map((f) => (f === found && primary ? primary : f))
  return {
    loopId: state.loopId,
    goal: state.goal,
    task: state.task ?? null,
    iteration: state.iteration,
    maxIterations: state.maxIterations,
    stage: input.stage,
    capability: input.capability,
    strategy: input.strategy,
    hint: strategyHint(input.strategy, primary?.hint),
    failure: primary,
    failures,
    tried: state.failures.tried.map((t) => ({ ...t })),
    lessons: primary
      ? lessonsFor(
          { pattern: primary.pattern, signature: primary.signature, file: primary.locations[0]?.file },
          input.deadLetters ?? [],
        )
      : [],
    codeContext: input.selection?.snippets ?? input.codeContext,
    attempt: input.selection?.level ?? 1,
    contextAdded: input.selection?.added ?? [],
    contextCut: input.selection?.cut ?? [],
    changes: input.selection?.changes ?? null,
    session: state.session ?? null,
  }
}

/** The markdown prompt: goal, stage, capability, the failure analysis, the hint, what was tried, code. */
export function renderPrompt(context: WorkContext): string {
  const lines: string[] = []
  lines.push(`# Goal`, '', context.goal, '')
  if (context.task) lines.push(...renderTask(context.task))
  lines.push(
    `Loop \`${context.loopId}\` · iteration ${context.iteration} of ${context.maxIterations} · stage ${context.stage}` +
      (context.capability ? ` · capability \`${context.capability}\`` : ''),
    '',
  )
  if (context.strategy) lines.push(`## Strategy: \`${context.strategy}\``, '', context.hint, '')
  if (context.failure) {
    const f = context.failure
    lines.push('## What failed', '')
    if (f.kind === 'task') {
      lines.push(
        `The stage task \`${f.check.replace(/^task:/, '')}\` is not done: its command, run after your work, failed. Do what it checks for.`,
        '',
      )
    } else
      lines.push(
        `The check \`${f.check}\` (${f.kind}) failed: ${describePattern(f)}${f.regression ? ', and it passed before the loop started (a regression)' : ''}.`,
        '',
      )
    for (const location of f.locations.slice(0, 20)) lines.push(`- ${formatLocation(location)}`)
    if (f.locations.length > 0) lines.push('')
    if (f.excerpt) lines.push('```text', fence(f.excerpt), '```', '')
    const others = context.failures.filter((other) => other !== f)
    if (others.length > 0) {
      lines.push('Other failing checks:', '')
      for (const other of others) {
        lines.push(
          `- \`${other.check}\`: ${other.pattern ?? 'unclassified'}${other.locations[0] ? ` at ${formatLocation(other.locations[0])}` : ''}`,
        )
      }
      lines.push('')
    }
  } else {
    lines.push('## Status', '', 'No check is failing right now. Work toward the goal.', '')
  }
  lines.push(...renderLessons(context.lessons))
  if (context.tried.length > 0) {
    lines.push('## Already tried (do not repeat)', '')
    for (const [i, t] of context.tried.entries())
      lines.push(`${i + 1}. iteration ${t.iteration} · \`${t.strategy}\` → ${t.outcome}`)
    lines.push('')
  }
  lines.push(...renderCodeSections(context, fence))
  lines.push(
    '## Rules',
    '',
    '- The verification matrix decides when the work is done, not you. Do not edit the loop config, the pattern file, workflows, or weaken tests.',
    '- If you need a person (a decision, access, an unclear requirement), print a line starting with `BLOCKED:` and the question, and exit 3.',
    '',
  )
  return lines.join('\n')
}

/** The failure's pattern and confidence; the controller's own `regression-detected` is certain, so no score. */
function describePattern(failure: FailureForAgent): string {
  if (!failure.pattern) return 'no known pattern'
  if (failure.pattern === 'regression-detected') return '`regression-detected` (no other pattern matched)'
  return `\`${failure.pattern}\` (confidence ${(failure.confidence ?? 0).toFixed(2)})`
}

export function formatLocation(location: Location): string {
  const position = location.line ? `:${location.line}${location.column ? `:${location.column}` : ''}` : ''
  return `${location.file}${position}${location.message ? ` ${location.message}` : ''}`
}

function fence(text: string): string {
  return text.replace(/```/g, '`\u200b``')
}

/** Which lines to show around each location: ±50 lines, merged per file, at most `maxSnippets`. */
export function contextWindows(
  locations: readonly Location[],
  radius = 50,
  maxSnippets = 4,
): { file: string; startLine: number; endLine: number }[] {
  const windows: { file: string; startLine: number; endLine: number }[] = []
  for (const location of locations) {
    if (!location.line) continue
    const start = Math.max(1, location.line - radius)
    const end = location.line + radius
    const overlapping = windows.find((w) => w.file === location.file && start <= w.endLine && end >= w.startLine)
    if (overlapping) {
      overlapping.startLine = Math.min(overlapping.startLine, start)
      overlapping.endLine = Math.max(overlapping.endLine, end)
    } else if (windows.length < maxSnippets) {
      windows.push({ file: location.file, startLine: start, endLine: end })
    }
  }
  return windows
}
