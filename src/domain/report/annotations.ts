/**
 * Annotations from extracted locations. GitHub shows at most 10 error annotations per step, so the
 * first ones become annotations and the rest are listed in the job summary. Pure.
 */
import type { CheckResult, Location } from '../state.js'

/** GitHub's limit of error annotations shown per step. */
export const MAX_ANNOTATIONS = 10

export interface AnnotationCandidate {
  check: string
  pattern: string | null
  location: Location
  /** The first line of the check's output, which names what failed when the location's message does not. */
  context?: string
}

// A location message shorter than this (`expected: 9`) says too little alone.
const TERSE_MESSAGE = 40

export interface Annotation {
  file: string
  line?: number
  column?: number
  title: string
  message: string
}

/** The locations of the failing checks, in matrix order. */
export function locationsOf(checks: readonly CheckResult[]): AnnotationCandidate[] {
  return checks.flatMap((check) =>
    check.verdict === 'pass' || check.verdict === 'skipped' || check.verdict === 'flaky'
      ? []
      : check.locations.map((location) => {
          // The first line that says something (not a fence or a rule).
          const context = check.excerpt
            .split('\n')
            .find((line) => /[A-Za-z0-9]/.test(line))
            ?.trim()
          return { check: check.name, pattern: check.pattern, location, ...(context ? { context } : {}) }
        }),
  )
}

/**
 * A file path as GitHub wants it for an annotation: relative to the workspace, forward slashes, no
 * leading `./`. Paths outside the workspace are kept as they are (GitHub then shows them unlinked).
 */
export function annotationPath(file: string, workspaceRoot: string): string {
  let path = file.replace(/\\/g, '/')
  const root = workspaceRoot.replace(/\\/g, '/').replace(/\/+$/, '')
  if (root !== '' && path.startsWith(`${root}/`)) path = path.slice(root.length + 1)
  return path.replace(/^(\.\/)+/, '')
}

/**
 * Picks at most `max` annotations (duplicates of the same place and message removed, first come
 * first served) and returns the rest as overflow for the summary.
 */
export function selectAnnotations(
  candidates: readonly AnnotationCandidate[],
  max = MAX_ANNOTATIONS,
  workspaceRoot = '',
): { annotations: Annotation[]; overflow: Annotation[] } {
  const seen = new Set<string>()
  const unique: Annotation[] = []
  for (const { check, pattern, location, context } of candidates) {
    const file = annotationPath(location.file, workspaceRoot)
    if (file === '') continue
    const own = (location.message ?? '').trim()
    const message =
      own === ''
        ? context
          ? `${check} failed here: ${context}`
          : `${check} failed here`
        : own.length < TERSE_MESSAGE && context && !context.includes(own)
          ? `${context}\n${own}`
          : own
    const key = `${file}\0${location.line ?? ''}\0${location.column ?? ''}\0${message}`
    if (seen.has(key)) continue
    seen.add(key)
    unique.push({
      file,
      ...(location.line !== undefined ? { line: location.line } : {}),
      ...(location.line !== undefined && location.column !== undefined ? { column: location.column } : {}),
      title: pattern ? `${check}: ${pattern}` : check,
      message: message.length > 1000 ? `${message.slice(0, 999)}…` : message,
    })
  }
  const limit = Math.max(0, max)
  return { annotations: unique.slice(0, limit), overflow: unique.slice(limit) }
}
