/** Small formatters shared by the summary and the comment. Pure. */
import type { LoopStatus } from '../stages.js'
import type { CheckResult } from '../state.js'
import type { PullRequestWaiting } from './model.js'

/** `850 ms`, `12.1 s`, `3 min 5 s`, `1 h 2 min`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return ''
  if (ms < 1000) return `${Math.round(ms)} ms`
  const seconds = ms / 1000
  if (seconds < 60) return `${seconds.toFixed(1)} s`
  const wholeSeconds = Math.round(seconds)
  const minutes = Math.floor(wholeSeconds / 60)
  if (minutes < 60) return `${minutes} min ${wholeSeconds % 60} s`
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`
}

const VERDICT_ICONS: Record<CheckResult['verdict'], string> = {
  pass: '✅',
  fail: '❌',
  timeout: '⏱️ timed out',
  skipped: '⏭️ skipped',
  flaky: '⚠️ flaky (passed on re-run)',
  error: '💥 could not run',
}

/** The verdict cell: an icon, and a word where the icon alone is ambiguous (or the fix was automatic). */
export function verdictLabel(verdict: CheckResult['verdict'], autoFixed = false): string {
  return autoFixed && verdict === 'pass' ? '✅ auto-fixed' : VERDICT_ICONS[verdict]
}

/** A check's verdict cell; a failing check that passed at the baseline is called a regression. */
export function checkVerdictLabel(check: CheckResult): string {
  if (check.regression && isFailing(check)) {
    return check.verdict === 'fail' ? '❌ regression' : `${VERDICT_ICONS[check.verdict]} (regression)`
  }
  return verdictLabel(check.verdict, check.autoFixed)
}

/** True for verdicts that count against the iteration. */
export function isFailing(check: CheckResult): boolean {
  return check.verdict === 'fail' || check.verdict === 'timeout' || check.verdict === 'error'
}

/** `1 check`, `4 checks`, `1 auto-fix`, `2 auto-fixes` (pass the plural when it is not the word plus s). */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`
}

/** `✅ all 4 checks passed`, `✅ the 1 check passed`, `❌ 1 of 4 checks failed`, `no checks ran`. */
export function verdictLine(checks: readonly CheckResult[]): string {
  if (checks.length === 0) return 'no checks ran'
  const failing = checks.filter(isFailing).length
  const noun = checks.length === 1 ? 'check' : 'checks'
  if (failing === 0) {
    const skipped = checks.filter((c) => c.verdict === 'skipped').length
    return skipped > 0
      ? `✅ ${checks.length - skipped} of ${checks.length} ${noun} passed, ${skipped} skipped`
      : checks.length === 1
        ? '✅ the 1 check passed'
        : `✅ all ${checks.length} ${noun} passed`
  }
  const regressions = checks.filter((c) => c.regression && isFailing(c)).length
  const which =
    regressions === 0 ? '' : `, ${regressions} of them ${regressions === 1 ? 'a regression' : 'regressions'}`
  return `❌ ${failing} of ${checks.length} ${noun} failed${which}`
}

/** The single-word verdict for the `verdict` output: pass, fail or none. */
export function overallVerdict(checks: readonly CheckResult[]): 'pass' | 'fail' | 'none' {
  if (checks.length === 0) return 'none'
  return checks.some(isFailing) ? 'fail' : 'pass'
}

/** `5,500`: digits grouped, so a count of tokens reads at a glance. */
export function formatCount(value: number): string {
  return Math.round(value).toLocaleString('en-US')
}

/** `$1.84`; a cost under a cent is `<$0.01`, not a zero it is not. */
export function formatUsd(value: number): string {
  return value > 0 && value < 0.005 ? '<$0.01' : `$${value.toFixed(2)}`
}

/** `location` as `file:line:column`. */
export function formatLocation(location: {
  file: string
  line?: number | undefined
  column?: number | undefined
}): string {
  return [location.file, location.line, location.line !== undefined ? location.column : undefined]
    .filter((part) => part !== undefined)
    .join(':')
}

/** The setting GitHub names when it refuses a workflow's token a pull request. */
export const PULL_REQUEST_SETTING = 'Allow GitHub Actions to create and approve pull requests'

/** What a person does when the pull request could not be opened: the setting, where it is, or a token. */
export function pullRequestWaitingSection(model: { pullRequestWaiting?: PullRequestWaiting }): string {
  const waiting = model.pullRequestWaiting
  if (!waiting) return ''
  return [
    `**Pull request not opened:** GitHub refused this job's token because the repository setting "${PULL_REQUEST_SETTING}" is off`,
    '(the default for new repositories and organizations). Turn it on under Settings → Actions → General → Workflow permissions',
    "(an organization's own Actions settings can hold it off), or give the action a `push-token` that may open pull requests.",
    `The branch \`${waiting.branch}\` is pushed: [compare and open the pull request](${waiting.compareUrl}). The loop asks again in its next iteration.`,
  ].join(' ')
}

/** A loop that has run no iteration and will not by itself: queued, or aborted before its first one. */
export function neverRan(state: { status: LoopStatus; iteration: number }): boolean {
  return (state.status === 'queued' || state.status === 'aborted') && state.iteration === 0
}

/** A loop aborted before its first iteration (while queued): nothing ran, so nothing was spent or checked. */
export function abortedBeforeStart(state: { status: LoopStatus; iteration: number }): boolean {
  return state.status === 'aborted' && neverRan(state)
}
