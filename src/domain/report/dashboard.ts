/**
 * The dashboard issue's body: every loop's row (`loops-table.ts`), then one checkbox per thing a person
 * can do to a loop from here (resume a BLOCKED loop, approve each pending gate, abort a running,
 * waiting or queued one), then notes on ticks that changed nothing. Each box carries a hidden marker naming its
 * loop and action, as Renovate's Dependency Dashboard does, so a tick is read back from the edited body
 * (`dashboard-ticks.ts`). Pure, and stable: the same loops give the same content (the digest the body
 * carries, its times left out), so a body whose loops did not move is never written again.
 */
import { createHash } from 'node:crypto'
import type { LoopState } from '../state.js'
import { code, inlineText, link, markdownText } from './escape.js'
import { COMMENT_MAX_CHARS } from './limits.js'
import { compareLoopIds, needsPerson } from './loop-order.js'
import { type ListedLoop, loopsTableRows, type QueueView, renderLoopsMarkdown, utcMinute } from './loops-table.js'

export const DASHBOARD_TITLE = 'Loop dashboard'
/** The label that finds the dashboard among the issues the controller opened. */
export const DASHBOARD_LABEL = 'loop/dashboard'
/** Opens every body the controller writes. */
export const DASHBOARD_MARKER = '<!-- loop-dashboard -->'

/**
 * Whether an issue's body is one the controller wrote: it opens with the marker. A bot's issue that
 * someone labelled `loop/dashboard` (another workflow's `github-actions[bot]` posts as the same login)
 * is not the dashboard, so it is neither adopted nor kept in place of the real one.
 */
export function isDashboardBody(body: string): boolean {
  return body.startsWith(DASHBOARD_MARKER)
}
const NOTES_MARKER = '<!-- loop-dashboard:notes -->'
/** Notes kept under the table: the newest few, so the body stays bounded. */
export const MAX_NOTES = 5
const MAX_NOTE_CHARS = 300

export type DashboardAction = { kind: 'resume' } | { kind: 'abort' } | { kind: 'approve'; gate: string }

/** One checkbox: the loop and action it stands for, its hidden marker and its line (unticked). */
export interface DashboardBox {
  loopId: string
  action: DashboardAction
  marker: string
  line: string
}

const LOOP_ID = '[A-Za-z0-9._-]{1,200}'
const GATE = '[a-z0-9][a-z0-9-]{0,99}'
/** A box's marker, e.g. `<!-- loop-dashboard:approve=verifier:my-loop -->`. */
export const MARKER_PATTERN = new RegExp(`<!-- loop-dashboard:(resume|abort|approve=${GATE}):(${LOOP_ID}) -->`)

export function boxMarker(loopId: string, action: DashboardAction): string {
  const what = action.kind === 'approve' ? `approve=${action.gate}` : action.kind
  return `<!-- loop-dashboard:${what}:${loopId} -->`
}

/** The action and loop a marker names, or null when it is no marker of ours. */
export function parseMarker(text: string): { loopId: string; action: DashboardAction } | null {
  const match = MARKER_PATTERN.exec(text)
  if (!match) return null
  const [, what = '', loopId = ''] = match
  const action: DashboardAction = what.startsWith('approve=')
    ? { kind: 'approve', gate: what.slice('approve='.length) }
    : { kind: what as 'resume' | 'abort' }
  return { loopId, action }
}

function label(loopId: string, action: DashboardAction, state: LoopState, queue?: QueueView | null): string {
  switch (action.kind) {
    case 'resume':
      return `Resume ${code(loopId)} (${inlineText(state.status)}: ${inlineText(state.statusReason || 'no reason recorded', 160)})`
    case 'approve':
      return `Approve gate ${code(action.gate)} of ${code(loopId)}`
    case 'abort':
      return state.status === 'queued'
        ? `Abort ${code(loopId)} (${queuedAbortText(loopId, state, queue)})`
        : `Abort ${code(loopId)} (${inlineText(state.status)})`
  }
}

/** What aborting a queued loop gives up, as the slots record has it (its row says the same). */
function queuedAbortText(loopId: string, state: LoopState, queue?: QueueView | null): string {
  if (!queue || queue.record.queued.some((entry) => entry.loopId === loopId)) {
    return 'queued: it gives up its place in line'
  }
  if (queue.record.running.some((holder) => holder.loopId === loopId)) {
    return 'admitted: its job is starting; it gives up its slot'
  }
  return `queued, not in line: ${inlineText(state.statusReason || 'no reason recorded', 160)}`
}

/**
 * Why a box the body showed no longer stands for anything: the loop moved on between the rewrite and
 * the tick's job (or is gone). Said under the table, so a tick that did nothing does not stay ticked unsaid.
 * `state` is undefined when the store no longer lists the loop, null when its state cannot be read.
 */
export function noLongerOffered(loopId: string, action: DashboardAction, state: LoopState | null | undefined): string {
  // Plain text with code spans, as `actionWords`: `noteText` escapes it for the body.
  const verb = action.kind
  if (state === undefined) return `\`${loopId}\` is no longer listed; nothing to ${verb}`
  if (state === null) return `the state of \`${loopId}\` cannot be read; nothing to ${verb}`
  const now = `now ${state.status}`
  switch (action.kind) {
    case 'resume':
      return `\`${loopId}\` is no longer BLOCKED (${now}); nothing to resume`
    case 'abort':
      return `\`${loopId}\` is no longer running, waiting or queued (${now}); nothing to abort`
    case 'approve': {
      const gate = state.gates[action.gate]
      return gate
        ? `gate \`${action.gate}\` of \`${loopId}\` is no longer pending (now ${gate.status}); nothing to approve`
        : `\`${loopId}\` has no gate \`${action.gate}\`; nothing to approve`
    }
  }
}

/** What a person can do to this loop from the dashboard, in a fixed order. */
export function dashboardActions(state: LoopState): DashboardAction[] {
  const actions: DashboardAction[] = []
  // No box for a capped loop: a resume alone is refused while its limit is reached, and a tick cannot
  // carry the higher cap or budget that lifts it (its report says how: a dispatch with max-iterations).
  if (state.status === 'blocked') actions.push({ kind: 'resume' })
  const pending = Object.keys(state.gates)
    .filter((gate) => state.gates[gate]?.status === 'pending')
    .sort()
  for (const gate of pending) actions.push({ kind: 'approve', gate })
  // A queued loop's abort also gives up its place in line (the job that applies it releases it).
  if (state.status === 'running' || state.status === 'waiting' || state.status === 'queued') {
    actions.push({ kind: 'abort' })
  }
  return actions
}

/**
 * The boxes of every readable loop, sorted by loop id (`compareLoopIds`); each line as the controller
 * writes it, unticked. `queue`, when the slots record was read, labels a queued loop's abort from it.
 */
export function dashboardBoxes(loops: readonly ListedLoop[], queue?: QueueView | null): DashboardBox[] {
  return [...loops]
    .filter((loop): loop is ListedLoop & { state: LoopState } => loop.state !== null)
    .sort((a, b) => compareLoopIds(a.loopId, b.loopId))
    .flatMap(({ loopId, state }) =>
      dashboardActions(state).map((action) => {
        const marker = boxMarker(loopId, action)
        return { loopId, action, marker, line: `- [ ] ${marker} ${label(loopId, action, state, queue)}` }
      }),
    )
}

/** The notes under the table of a body the controller wrote (oldest first), to carry into the next one. */
export function notesOf(body: string): string[] {
  const at = body.indexOf(NOTES_MARKER)
  if (at < 0) return []
  return body
    .slice(at + NOTES_MARKER.length)
    .split(/\r?\n/)
    .filter((line) => line.startsWith('- '))
    .map((line) => line.slice(2).slice(0, MAX_NOTE_CHARS))
    .slice(-MAX_NOTES)
}

/** Escapes a new note (text the controller composed, naming people and loops) for the body; code spans stay. */
export function noteText(text: string): string {
  return markdownText(text, MAX_NOTE_CHARS)
}

/** An action in a few words, for the log and the notes: ``resume `stuck` ``, ``approve gate `x` of `l` ``. */
export function actionWords(loopId: string, action: DashboardAction): string {
  return action.kind === 'approve' ? `approve gate \`${action.gate}\` of \`${loopId}\`` : `${action.kind} \`${loopId}\``
}

/** Who rewrote the body and when: said in it, and the loops' ages are counted to that moment. */
export interface Rewrite {
  at: Date
  /** The workflow run that wrote it, linked where its address is known. */
  run?: { id: string; url: string | null }
}

const CONTENT_MARKER = /<!-- loop-dashboard:content ([0-9a-f]{16}) -->/

/**
 * What a body shows but for when it was rewritten (the hidden digest the body carries): two bodies with
 * the same content differ only in their times, and the second need not be written. Null for a body
 * without one (written by an older release).
 */
export function contentOf(body: string): string | null {
  return CONTENT_MARKER.exec(body)?.[1] ?? null
}

interface BodyInput {
  loops: readonly ListedLoop[]
  repositoryUrl: string
  notes?: readonly string[]
  /** The slots record, when the store keeps one: a queued loop's row says its place in line and why. */
  queue?: QueueView | null
  /** When (and by which run) this body is written; without it each loop's last save is its UTC time. */
  rewrite?: Rewrite
  /** Why the issue is not pinned (GitHub pins three issues per repository), when it is not. */
  notPinned?: string
}

/**
 * The whole body. `notes` are already escaped (`noteText`, or carried from the last body by `notesOf`);
 * only the newest `MAX_NOTES` are kept.
 */
export function renderDashboard(
  input: BodyInput & {
    /** At most this many characters (GitHub's issue body holds 65,536); default that. */
    maxChars?: number
  },
): string {
  const maxChars = input.maxChars ?? COMMENT_MAX_CHARS
  const full = renderBody(input.loops, input, 0)
  if (full.length <= maxChars) return full
  // Too many loops for one issue: the finished ones go first, then the last by id (`compareLoopIds`) of
  // those no person is waited for, said in the body; a loop that waits for a person keeps its row and
  // boxes longest. The rows and boxes shown are sorted by id whatever the order they were kept in.
  let shown = [...input.loops]
    .filter((loop) => loop.state === null || !FINISHED.includes(loop.state.status))
    .sort((a, b) => Number(needsPerson(b.state)) - Number(needsPerson(a.state)) || compareLoopIds(a.loopId, b.loopId))
  let body = renderBody(shown, input, input.loops.length - shown.length)
  while (body.length > maxChars && shown.length > 0) {
    const keep = Math.min(shown.length - 1, Math.floor((shown.length * maxChars) / body.length))
    shown = shown.slice(0, Math.max(0, keep))
    body = renderBody(shown, input, input.loops.length - shown.length)
  }
  return body
}

/** Statuses a loop does not leave by itself; they make room first when the body is too long. */
const FINISHED: readonly string[] = ['complete', 'aborted']

/** The body with its content digest: taken over the same body without its times, so a rewrite that changes only them is none. */
function renderBody(loops: readonly ListedLoop[], input: BodyInput, hidden: number): string {
  const timeless = bodyParts(loops, { ...input, rewrite: undefined }, hidden).join('\n\n')
  const digest = createHash('sha256').update(timeless).digest('hex').slice(0, 16)
  const parts = bodyParts(loops, input, hidden)
  parts.splice(1, 0, `<!-- loop-dashboard:content ${digest} -->`)
  return `${parts.join('\n\n')}\n`
}

function bodyParts(loops: readonly ListedLoop[], input: BodyInput, hidden: number): string[] {
  const rows = loopsTableRows(loops, input.repositoryUrl, input.queue, input.loops, input.rewrite?.at)
  const boxes = dashboardBoxes(loops, input.queue)
  const notes = (input.notes ?? []).slice(-MAX_NOTES)
  const omitted =
    hidden > 0
      ? `\n\n${hidden} more loop(s) are not listed (an issue holds ${COMMENT_MAX_CHARS} characters); ` +
        'the state branch holds every one, a folder per loop.'
      : ''
  const parts = [
    DASHBOARD_MARKER,
    'Every loop of loop-controller in this repository, rewritten at the end of each loop job and by a sweep that changed one. ' +
      'Tick a box to act on a loop: a tick counts from people with write, maintain or admin access.',
  ]
  if (input.rewrite) parts.push(rewrittenLine(input.rewrite))
  if (input.notPinned) {
    parts.push(`Not pinned: ${inlineText(input.notPinned, 200)}. Each rewrite tries again.`)
  }
  parts.push(
    '## Loops',
    `${rows.length > 0 ? renderLoopsMarkdown(rows) : 'No loops yet.'}${omitted}`,
    '## Actions',
    boxes.length > 0 ? boxes.map((box) => box.line).join('\n') : 'Nothing waits for a person.',
  )
  if (notes.length > 0) parts.push(`## Notes\n${NOTES_MARKER}\n${notes.map((note) => `- ${note}`).join('\n')}`)
  return parts
}

/** `Rewritten 2026-01-01 10:00 UTC by [run 77](…); each loop's "updated" is its last save's age then.` */
function rewrittenLine(rewrite: Rewrite): string {
  const run = rewrite.run
  const by = run ? ` by ${run.url ? link(`run ${run.id}`, run.url) : inlineText(`run ${run.id}`)}` : ''
  return `Rewritten ${utcMinute(rewrite.at)}${by}; a loop's *updated* is the age of its last save at that moment.`
}
