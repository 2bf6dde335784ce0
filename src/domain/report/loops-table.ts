/**
 * Every loop on one row: stage, status, iterations of the cap, what it spent, its last verdict, its
 * links (issue, pull request, last run) and, for a queued loop, its place in line and why it waits.
 * One model, two renderings: plain columns for `loop-controller status --all` and a Markdown table for
 * the dashboard issue, so the two never differ. A status is shown as the state holds it: a new status
 * is one more value, not a new branch here.
 */
import { hasEnded, type Limit, queueWait, type SlotsRecord } from '../slots.js'
import type { LoopState } from '../state.js'
import { code, inlineText, link } from './escape.js'
import { neverRan } from './format.js'
import { compareLoopIds } from './loop-order.js'
import { queuedReason } from './queued.js'

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
  /** When the state was last saved: its age at `now` (`2h 10m ago`), or the UTC time without one. */
  updated: string
  iterations: string
  spent: string
  lastVerdict: string
  /** Every check the last verdict failed (the verdict's text names the first few); empty when none. */
  failingChecks: readonly string[]
  issue: { number: number; url: string | null } | null
  pullRequest: { number: number; url: string | null } | null
  /** The run that last ran an iteration; its URL where the repository's address is known. */
  lastRun: { id: string; url: string | null } | null
  /** A queued loop's place in line and why it waits; `-` for any other status. */
  queue: string
}

/**
 * The slots record (`queue.json`) as one read found it, and the `max-loops` it is kept under: `unknown`
 * where the reader cannot know it (the CLI without `--max-loops`: the limit is the workflow's input, not
 * kept in the record), so no limit is invented.
 */
export interface QueueView {
  record: SlotsRecord
  limit: Limit | 'unknown'
  /**
   * `limit` is the reader's (`status --all --max-loops N`), not the one the queue was last changed under:
   * a slot it frees is said as what that limit would give, not as what happens.
   */
  supposed?: true
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
  'queue',
  // Last, so the dashboard's columns before it keep their places for whoever reads a row by position (the
  // text table, for eyes, drops an all-empty queue column; scripts read `status --all --json`).
  'updated',
] as const

/** `50,000`: a whole number with thousands separated (the same in every locale). */
function grouped(value: number): string {
  return String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

/** `5`, `0.5`, `1.25`: a limit as it was set, without trailing zeros. */
function plain(value: number): string {
  return String(Number(value.toFixed(2)))
}

/**
 * Wall time, then tokens and cost when the agent reported any, each of its budget where one is set
 * (`12 of 60 min · 3,000 of 50,000 tokens · $0.40 of $5`): a budget's part is shown even at zero spent.
 */
export function spentText(state: LoopState): string {
  const { usage, budget } = state
  const seconds = Math.round(usage.wallMs / 1000)
  // Under half a second is not nothing (the comment says `242 ms`): `<1 s`, and `0 s` only for none.
  const underOne = seconds === 0 && usage.wallMs > 0
  const used =
    seconds < 60 ? `${underOne ? '<1' : seconds} s` : `${Math.round(seconds / 60)}${budget.minutes ? '' : ' min'}`
  const time = budget.minutes ? `${used} of ${plain(budget.minutes)} min` : used
  const parts = [time]
  if (budget.tokens) parts.push(`${grouped(usage.tokens)} of ${grouped(budget.tokens)} tokens`)
  else if (usage.tokens > 0) parts.push(`${grouped(usage.tokens)} tokens`)
  if (budget.costUsd) parts.push(`$${usage.costUsd.toFixed(2)} of $${plain(budget.costUsd)}`)
  else if (usage.costUsd > 0) parts.push(`$${usage.costUsd.toFixed(2)}`)
  return parts.join(' · ')
}

/**
 * The run's web address: from the repository's address when it is known (`https://HOST/OWNER/REPO`),
 * else the one the state kept when it is plainly that run's; null otherwise (the id alone is shown).
 */
function runUrl(lastRun: { id: string; url: string }, repositoryUrl: string | undefined): string | null {
  if (!/^[0-9]{1,20}$/.test(lastRun.id)) return null
  if (repositoryUrl) return `${repositoryUrl}/actions/runs/${lastRun.id}`
  const kept = lastRun.url
  return /^https:\/\/[^\s]+$/.test(kept) && kept.endsWith(`/actions/runs/${lastRun.id}`) ? kept : null
}

/** Failing checks named in the verdict before the rest are counted. */
const NAMED_FAILURES = 3

/** The last verification: `pass (all 4)`, `fail: unit, lint (2 of 3)`, or `-` before any. */
export function lastVerdictText(state: LoopState): string {
  const verdict = lastVerdict(state)
  if (!verdict) return '-'
  const text = verdictsText(verdict.failing, verdict.checks)
  return verdict.baseline ? `baseline: ${text}` : text
}

/**
 * The last verdict's facts: the checks it failed and how many it judged; the baseline's when no
 * verification ran yet (fan-out's baseline round); null before either.
 */
export function lastVerdict(state: LoopState): { failing: string[]; checks: number; baseline: boolean } | null {
  const results = state.lastVerification?.results ?? []
  if (results.length > 0) {
    const failed = results.filter((r) => r.verdict === 'fail' || r.verdict === 'timeout' || r.verdict === 'error')
    return { failing: failed.map((r) => r.name), checks: results.length, baseline: false }
  }
  const baseline = Object.entries(state.baseline?.checks ?? {})
  if (baseline.length === 0) return null
  const failing = baseline.filter(([, verdict]) => verdict === 'fail').map(([name]) => name)
  return { failing, checks: baseline.length, baseline: true }
}

function verdictsText(failed: readonly string[], total: number): string {
  if (failed.length === 0) return `pass (all ${total})`
  const more = failed.length > NAMED_FAILURES ? ` +${failed.length - NAMED_FAILURES} more` : ''
  return `fail: ${failed.slice(0, NAMED_FAILURES).join(', ')}${more} (${failed.length} of ${total})`
}

/** `2026-01-01 10:00 UTC`: an instant to the minute, the same wherever it is read. */
export function utcMinute(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

/** How long before `now` a thing happened: `just now`, `5m ago`, `2h 10m ago`, `3d 4h ago`. */
export function ageText(at: Date, now: Date): string {
  const minutes = Math.floor((now.getTime() - at.getTime()) / 60_000)
  if (minutes < 1) return 'just now'
  if (minutes < 60) return `${minutes}m ago`
  const hours = Math.floor(minutes / 60)
  if (hours < 24) return `${hours}h ${minutes % 60}m ago`
  return `${Math.floor(hours / 24)}d ${hours % 24}h ago`
}

/** When a state was saved, as the table says it: its age at `now`, else its UTC time; `-` when unknown. */
function updatedText(updatedAt: string, now?: Date): string {
  const at = new Date(updatedAt)
  if (Number.isNaN(at.getTime())) return '-'
  return now ? ageText(at, now) : utcMinute(at)
}

/** A loop as the queue cell names it: `#12` for an issue's loop, else its id. */
function shortName(loopId: string): string {
  return /^issue-[1-9][0-9]*$/.test(loopId) ? `#${loopId.slice('issue-'.length)}` : loopId
}

/**
 * Where a queued loop stands: its place in line and why (from the record, with the statuses the listed
 * loops give, so a dependency that ended short of COMPLETE is said the moment it ends); admitted when
 * the record gave it a slot and its job has yet to start; the state's own reason without a record.
 */
export function queueText(state: LoopState, loops: readonly ListedLoop[], queue?: QueueView | null): string {
  if (state.status !== 'queued') return '-'
  if (queue) {
    const statuses = new Map(loops.flatMap((loop) => (loop.state ? [[loop.loopId, loop.state.status] as const] : [])))
    // A loop that ended (aborted in line, or without giving its slot back) holds no place: the record's
    // next change drops it, and the places are said as that change will leave them.
    const live: SlotsRecord = {
      running: queue.record.running.filter((holder) => !hasEnded(statuses.get(holder.loopId))),
      queued: queue.record.queued.filter((entry) => !hasEnded(statuses.get(entry.loopId))),
    }
    const limit = queue.limit === 'unknown' ? null : queue.limit
    const unknown = queue.limit === 'unknown'
    const wait = queueWait(live, state.loopId, statuses, limit)
    if (wait) {
      const why =
        unknown && wait.slotOnly
          ? `it waits for a slot: ${wait.running} running, limit unknown (give --max-loops)`
          : wait.slotOnly && wait.limit !== null && wait.running < wait.limit
            ? freeSlotsText(wait.limit, wait.limit - wait.running, wait.ahead ?? 0, queue)
            : queuedReason(wait, shortName)
      return `${wait.position} of ${wait.queued} in line: ${why}`
    }
    if (live.running.some((holder) => holder.loopId === state.loopId)) {
      return 'admitted: its job is starting'
    }
  }
  return state.statusReason || 'queued'
}

/**
 * Free slots for a loop that waits for a slot only, as fact under the queue's own limit, or as a
 * supposition under the reader's: the next change of the queue serves the `ahead` ready loops before it
 * (`settle`), so it starts then only when a slot is left for it.
 */
function freeSlotsText(limit: Limit, free: number, ahead: number, queue: QueueView): string {
  if (ahead >= free) {
    const loops = ahead === 1 ? 'the 1 ready loop' : `the ${ahead} ready loops`
    if (queue.supposed) {
      return `under max-loops ${limit}, ${free === 1 ? '1 slot would be' : `${free} slots would be`} free, for ${loops} ahead of it in line`
    }
    return `${free === 1 ? '1 slot is' : `${free} slots are`} free, for ${loops} ahead of it in line (max-loops: ${limit})`
  }
  if (!queue.supposed) return 'a slot is free; it starts at the next change of the queue'
  const recorded = queue.record.limit
  const since =
    recorded === undefined || recorded === null
      ? 'the queue records no limit'
      : `the queue was last changed under max-loops ${recorded}`
  return `under max-loops ${limit} a slot would be free (${since})`
}

/**
 * The rows of `loops`, sorted by loop id (`compareLoopIds`: numbers by value). `repositoryUrl` (`https://github.com/owner/repo`) links the
 * issue a loop started from; without it (a local state directory) the issue is named, not linked.
 * `queue`, when the slots record was read, says where each queued loop stands, from the statuses of
 * `everyLoop` (default `loops`: a table that shows only some loops still knows their dependencies').
 * `now` makes each loop's last save an age (a running loop last saved days ago is plainly not running).
 */
export function loopsTableRows(
  loops: readonly ListedLoop[],
  repositoryUrl?: string,
  queue?: QueueView | null,
  everyLoop: readonly ListedLoop[] = loops,
  now?: Date,
): LoopsTableRow[] {
  return [...loops]
    .sort((a, b) => compareLoopIds(a.loopId, b.loopId))
    .map(({ loopId, state, problem }) => {
      if (!state) {
        return {
          loopId,
          stage: '-',
          status: 'unreadable',
          updated: '-',
          iterations: '-',
          spent: '-',
          lastVerdict: problem ?? '-',
          failingChecks: [],
          issue: null,
          pullRequest: null,
          lastRun: null,
          queue: '-',
        }
      }
      const task = state.task
      // A loop waiting in line before its first iteration, or aborted there, is in no stage.
      const notStarted = neverRan(state)
      return {
        loopId,
        stage: notStarted ? '-' : state.stage,
        status: state.status,
        updated: updatedText(state.updatedAt, now),
        iterations: notStarted
          ? `not started (cap ${state.maxIterations})`
          : `${state.iteration} of ${state.maxIterations}`,
        spent: spentText(state),
        lastVerdict: lastVerdictText(state),
        failingChecks: lastVerdict(state)?.failing ?? [],
        issue:
          task?.source === 'issue'
            ? { number: task.number, url: repositoryUrl ? `${repositoryUrl}/issues/${task.number}` : null }
            : null,
        pullRequest: state.pullRequest ? { number: state.pullRequest.number, url: state.pullRequest.url } : null,
        lastRun: state.lastRun ? { id: state.lastRun.id, url: runUrl(state.lastRun, repositoryUrl) } : null,
        queue: queueText(state, everyLoop, queue),
      }
    })
}

/** A terminal's last verdict: a long problem (an unreadable state's) is cut; `--json` has it whole. */
const TEXT_VERDICT_CHARS = 60

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

function plainCells(row: LoopsTableRow): string[] {
  return [
    row.loopId,
    row.stage,
    row.status,
    row.iterations,
    row.spent,
    cut(row.lastVerdict, TEXT_VERDICT_CHARS),
    row.issue ? `#${row.issue.number}` : '-',
    row.pullRequest ? `#${row.pullRequest.number}` : '-',
    row.lastRun ? (row.lastRun.url ?? row.lastRun.id) : '-',
    row.queue,
    row.updated,
  ]
}

/** Plain columns padded to their widths, for a terminal; the queue column only when some loop is queued. */
export function renderLoopsText(rows: readonly LoopsTableRow[]): string {
  const queueAt = LOOPS_TABLE_COLUMNS.indexOf('queue')
  const withQueue = rows.some((row) => row.queue !== '-')
  const shown = <T>(cells: readonly T[]): T[] => cells.filter((_, i) => withQueue || i !== queueAt)
  const table = rows.map((row) => shown(plainCells(row)))
  const header = shown(LOOPS_TABLE_COLUMNS)
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
      row.queue === '-' ? '-' : inlineText(row.queue, 200),
      inlineText(row.updated),
    ]
    return `| ${cells.join(' | ')} |`
  })
  return [header, ...body].join('\n')
}
