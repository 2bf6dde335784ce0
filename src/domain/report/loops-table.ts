/**
 * Every loop on one row: stage, status, iterations of the cap, what it spent, its last verdict and its
 * links (issue, pull request, last run). One model, two renderings: plain columns for
 * `loop-controller status --all` and a Markdown table for the dashboard issue, so the two never differ.
 * A status is shown as the state holds it: a new status is one more value, not a new branch here.
 */
import type { LoopState } from '../state.js'
import { code, inlineText, link } from './escape.js'

/** A loop as a lister found it: its state, or why it could not be read. */
export interface ListedLoop {
  loopId: string
  state: LoopState | null
  problem?: string
}

export interface LoopsTableRow {
  loopId: string
  stage: string
  status: string
  iterations: string
  spent: string
  lastVerdict: string
  issue: { number: number; url: string | null } | null
  pullRequest: { number: number; url: string | null } | null
  lastRun: { id: string; url: string } | null
}

/** The columns, in order, as both renderings title them. */
export const LOOPS_TABLE_COLUMNS = [
  'loop',
  'stage',
  'status',
  'iterations',
  'spent',
  'last verdict',
  'issue',
  'pull request',
  'last run',
] as const

/** Wall time, then tokens and cost when the agent reported any. */
export function spentText(state: LoopState): string {
  const seconds = Math.round(state.usage.wallMs / 1000)
  const time = seconds < 60 ? `${seconds} s` : `${Math.round(seconds / 60)} min`
  const tokens = state.usage.tokens > 0 ? ` · ${state.usage.tokens} tokens` : ''
  const cost = state.usage.costUsd > 0 ? ` · $${state.usage.costUsd.toFixed(2)}` : ''
  return `${time}${tokens}${cost}`
}

/** The last verification: `pass (n)`, `fail (k of n)`, or `-` before any. */
export function lastVerdictText(state: LoopState): string {
  const results = state.lastVerification?.results ?? []
  if (results.length === 0) return '-'
  const failed = results.filter((r) => r.verdict === 'fail' || r.verdict === 'timeout' || r.verdict === 'error').length
  return failed === 0 ? `pass (${results.length})` : `fail (${failed} of ${results.length})`
}

/**
 * The rows of `loops`, sorted by loop id. `repositoryUrl` (`https://github.com/owner/repo`) links the
 * issue a loop started from; without it (a local state directory) the issue is named, not linked.
 */
export function loopsTableRows(loops: readonly ListedLoop[], repositoryUrl?: string): LoopsTableRow[] {
  return [...loops]
    .sort((a, b) => (a.loopId < b.loopId ? -1 : a.loopId > b.loopId ? 1 : 0))
    .map(({ loopId, state, problem }) => {
      if (!state) {
        return {
          loopId,
          stage: '-',
          status: 'unreadable',
          iterations: '-',
          spent: '-',
          lastVerdict: problem ?? '-',
          issue: null,
          pullRequest: null,
          lastRun: null,
        }
      }
      const task = state.task
      return {
        loopId,
        stage: state.stage,
        status: state.status,
        iterations: `${state.iteration} of ${state.maxIterations}`,
        spent: spentText(state),
        lastVerdict: lastVerdictText(state),
        issue:
          task?.source === 'issue'
            ? { number: task.number, url: repositoryUrl ? `${repositoryUrl}/issues/${task.number}` : null }
            : null,
        pullRequest: state.pullRequest ? { number: state.pullRequest.number, url: state.pullRequest.url } : null,
        lastRun: state.lastRun ?? null,
      }
    })
}

function plainCells(row: LoopsTableRow): string[] {
  return [
    row.loopId,
    row.stage,
    row.status,
    row.iterations,
    row.spent,
    row.lastVerdict,
    row.issue ? `#${row.issue.number}` : '-',
    row.pullRequest ? `#${row.pullRequest.number}` : '-',
    row.lastRun ? row.lastRun.id : '-',
  ]
}

/** Plain columns padded to their widths, for a terminal. */
export function renderLoopsText(rows: readonly LoopsTableRow[]): string {
  const table = rows.map(plainCells)
  const header = [...LOOPS_TABLE_COLUMNS]
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd()
  return `${[line(header), ...table.map(line)].join('\n')}\n`
}

function linked(label: string, url: string | null | undefined): string {
  return url ? link(label, url) : inlineText(label)
}

/** A Markdown table (every cell escaped), for the dashboard issue. */
export function renderLoopsMarkdown(rows: readonly LoopsTableRow[]): string {
  const header = `| ${LOOPS_TABLE_COLUMNS.join(' | ')} |\n|${LOOPS_TABLE_COLUMNS.map(() => ' --- |').join('')}`
  const body = rows.map((row) => {
    const cells = [
      code(row.loopId),
      inlineText(row.stage),
      `**${inlineText(row.status)}**`,
      inlineText(row.iterations),
      inlineText(row.spent),
      inlineText(row.lastVerdict, 200),
      row.issue ? linked(`#${row.issue.number}`, row.issue.url) : '-',
      row.pullRequest ? linked(`#${row.pullRequest.number}`, row.pullRequest.url) : '-',
      row.lastRun ? linked(`run ${row.lastRun.id}`, row.lastRun.url) : '-',
    ]
    return `| ${cells.join(' | ')} |`
  })
  return [header, ...body].join('\n')
}
