/**
 * The dashboard issue: one per repository, listing every loop the store holds, rewritten from the
 * states at the end of each loop job (and by a sweep that changed a loop); and the ticks people make on
 * it, applied as people's commands.
 *
 * Two jobs ending at once each read the states and write: after writing, the states are read again and
 * written once more when they moved (bounded), so the last write holds the newest states. Two jobs that
 * both find no dashboard may both open one: the lower number is kept and the other closed.
 */
import { type DashboardTick, readTicks } from '../domain/dashboard-ticks.js'
import {
  actionWords,
  contentOf,
  DASHBOARD_TITLE,
  type DashboardAction,
  dashboardBoxes,
  isDashboardBody,
  MAX_NOTES,
  noLongerOffered,
  notesOf,
  noteText,
  type Rewrite,
  renderDashboard,
} from '../domain/report/dashboard.js'
import type { ListedLoop, QueueView } from '../domain/report/loops-table.js'
import type { LoopState } from '../domain/state.js'
import type { Clock } from '../ports/clock.js'
import type { DashboardIssue, DashboardIssues } from '../ports/dashboard.js'
import type { Logger } from '../ports/logger.js'
import type { LoopReader } from '../ports/store.js'
import type { PeopleCommand } from './people-commands.js'

/** Writes after the first when the states moved meanwhile. */
const MAX_REWRITES = 2

export interface DashboardDeps {
  store: LoopReader
  issues: DashboardIssues
  logger: Pick<Logger, 'info' | 'warning'>
  /** The slots record (`max-loops`, `depends-on`), read with each listing; absent where there is none. */
  queue?: () => Promise<QueueView | null>
  /** When a rewrite happens, said in the body (each loop's age is counted to it); absent: no times. */
  clock?: Pick<Clock, 'now'>
}

/**
 * Every loop the store holds, with its state; a state that cannot be read (or one quarantined) is a row
 * with its problem. Read only: a job never moves another loop's state aside, so the row stays listed
 * until a person resets that loop.
 */
export async function listLoops(store: LoopReader): Promise<ListedLoop[]> {
  return store.readLoops()
}

/** The dashboard issue: the one the controller opened, or a new one; duplicates closed. */
export async function ensureDashboardIssue(
  deps: Pick<DashboardDeps, 'issues' | 'logger'>,
  firstBody: () => string,
): Promise<DashboardIssue> {
  let found = await deps.issues.list()
  if (found.length === 0) {
    const issue = await deps.issues.create(DASHBOARD_TITLE, firstBody())
    deps.logger.info(`Opened the dashboard issue #${issue.number}.`)
    // Another job may have opened one at the same moment: both now see both, and keep the lower.
    found = await deps.issues.list()
    if (found.length === 0) found = [issue]
  }
  const [kept, ...duplicates] = found as [DashboardIssue, ...DashboardIssue[]]
  for (const duplicate of duplicates) {
    await deps.issues.closeDuplicate(duplicate, kept.number)
    deps.logger.info(`Closed #${duplicate.number}, a second dashboard; #${kept.number} is kept.`)
  }
  return kept
}

/**
 * Pins the dashboard while it is not pinned (a person may unpin it, or all three of the repository's
 * pins were taken when it opened): null once it is, else why not, which the body says.
 */
export async function keepPinned(
  deps: Pick<DashboardDeps, 'issues' | 'logger'>,
  issue: DashboardIssue,
): Promise<string | null> {
  try {
    if (await deps.issues.isPinned(issue)) return null
    await deps.issues.pin(issue)
    deps.logger.info(`Pinned the dashboard issue #${issue.number}.`)
    return null
  } catch (error) {
    const why = (error as Error).message.split('\n')[0] ?? ''
    deps.logger.warning(`The dashboard issue #${issue.number} is not pinned: ${why}`)
    return why
  }
}

/** The loops and the queue as one listing found them: what one body is rendered from. */
interface Listing {
  loops: ListedLoop[]
  queue: QueueView | null
}

async function listing(deps: Pick<DashboardDeps, 'store' | 'queue' | 'logger'>): Promise<Listing> {
  const loops = await listLoops(deps.store)
  let queue: QueueView | null = null
  try {
    queue = (await deps.queue?.()) ?? null
  } catch (error) {
    // The rows still say `queued` and the reason each loop saved; the record's own problem is named.
    deps.logger.warning(`The dashboard shows no places in line: ${(error as Error).message}`)
  }
  return { loops, queue }
}

/** Comparable form of what the dashboard shows: a change here is a reason to write again. */
function fingerprint({ loops, queue }: Listing): string {
  const states = loops.map((loop) => [loop.loopId, loop.state?.updatedAt ?? null, loop.problem ?? null])
  return JSON.stringify([states, queue?.record ?? null])
}

/**
 * Rewrites the dashboard from the states (creating it when there is none), keeping the notes already
 * under the table and adding `notes` (plain text, escaped here). Returns the issue and how many writes
 * it took (0 when the body was already current).
 *
 * GitHub has no compare-and-swap for an issue's body, so another job's note is kept by reading the body
 * again right before each write, and this job's notes by reading it again after writing: a write of
 * another job that landed in between and dropped them is answered by writing again (bounded).
 */
export async function refreshDashboard(
  input: { repositoryUrl: string; notes?: readonly string[]; run?: Rewrite['run'] },
  deps: DashboardDeps,
): Promise<{ issue: DashboardIssue; writes: number }> {
  let listed = await listing(deps)
  const ours = (input.notes ?? []).map(noteText)
  const at = deps.clock?.now()
  const rewrite: Rewrite | undefined = at ? { at, ...(input.run ? { run: input.run } : {}) } : undefined
  let notPinned: string | null = null
  const fresh = (notes: readonly string[]) =>
    renderDashboard({
      loops: listed.loops,
      queue: listed.queue,
      repositoryUrl: input.repositoryUrl,
      notes,
      ...(rewrite ? { rewrite } : {}),
      ...(notPinned ? { notPinned } : {}),
    })
  // A new issue starts without notes: the first round below adds this job's.
  const issue = await ensureDashboardIssue(deps, () => fresh([]))
  notPinned = await keepPinned(deps, issue)
  let writes = 0
  let written: string[] = []
  for (let round = 0; round <= MAX_REWRITES; round++) {
    const current = (await deps.issues.get(issue.number)).body
    const carried = isDashboardBody(current) ? notesOf(current) : []
    // Our notes go in once; a later round adds back only those another job's write dropped.
    const adding = written.length === 0 ? ours : ours.filter((note) => !carried.includes(note))
    const body = fresh([...carried, ...adding])
    // Only the times differ: nothing a person needs is new, and the issue is not written for them.
    const unchanged = body === current || (contentOf(current) !== null && contentOf(current) === contentOf(body))
    if (!unchanged) {
      await deps.issues.update(issue.number, body)
      writes++
    }
    if (written.length === 0 && ours.length > 0) written = notesOf(body).slice(-Math.min(ours.length, MAX_NOTES))
    const again = await listing(deps)
    const kept = written.length === 0 || (await notesKept(deps.issues, issue.number, written))
    if (kept && fingerprint(again) === fingerprint(listed)) break
    if (!kept)
      deps.logger.info(`Another job rewrote the dashboard #${issue.number} over this job's notes: writing them again.`)
    listed = again
  }
  return { issue, writes }
}

/** Whether the issue's body still holds `notes`. */
async function notesKept(issues: DashboardIssues, number: number, notes: readonly string[]): Promise<boolean> {
  const now = notesOf((await issues.get(number)).body)
  return notes.every((note) => now.includes(note))
}

/** The people's command a box stands for. */
export function commandOf(action: DashboardAction): PeopleCommand {
  return action.kind === 'approve' ? { kind: 'approve', gate: action.gate } : { kind: action.kind }
}

export interface TickDeps extends DashboardDeps {
  /** Whether `actor` may command loops (the check people's comments get); the reason is said either way. */
  authorize: (actor: string, actorType: string) => Promise<{ allowed: boolean; reason: string }>
  /** Applies a person's command to a loop (audit trail and compare-and-swap as for a comment). */
  apply: (loopId: string, command: PeopleCommand, by: string) => Promise<LoopState>
  /** Dispatches the loop's next iteration; the failure's message, or null. */
  dispatch: (loopId: string, state: LoopState) => Promise<string | null>
}

export interface TickOutcome {
  tick: DashboardTick
  /** `stale`: the box's action no longer applies (the loop moved on before this job): nothing is applied. */
  outcome: 'applied' | 'queued' | 'dispatched' | 'refused' | 'failed' | 'stale'
  note: string
}

/**
 * The ticks of one edit of the dashboard (`before` → `after`) by `actor`: each checked against the
 * boxes the loops offer now, authorized, applied, and the loop's next iteration dispatched when the
 * command makes it run. Then the dashboard is rewritten: a refused tick, and a tick of a box whose
 * action no longer applies (the loop moved on), is unticked again and said under the table.
 */
export async function applyDashboardTicks(
  input: {
    before: string
    after: string
    actor: string
    actorType: string
    repositoryUrl: string
    run?: Rewrite['run']
  },
  deps: TickDeps,
): Promise<TickOutcome[]> {
  const loops = await listLoops(deps.store)
  const reading = readTicks(input.before, input.after, dashboardBoxes(loops))
  for (const why of reading.ignored) deps.logger.info(`Dashboard line ignored: ${why}.`)
  if (reading.ticks.length === 0 && reading.stale.length === 0) {
    deps.logger.info(`The edit by ${input.actor} ticks no box of the dashboard: nothing to do.`)
    return []
  }
  // Nothing is applied for these, whoever ticked them: the note says why, and the rewrite unticks them.
  const outcomes: TickOutcome[] = reading.stale.map((tick) => {
    const state = loops.find((loop) => loop.loopId === tick.loopId)?.state
    const why = noLongerOffered(tick.loopId, tick.action, state)
    return { tick, outcome: 'stale', note: `${input.actor} ticked ${actionWords(tick.loopId, tick.action)}: ${why}` }
  })
  if (reading.ticks.length > 0) outcomes.push(...(await commandTicks(reading.ticks, input, deps)))
  for (const outcome of outcomes) deps.logger.info(`Dashboard: ${outcome.note}.`)
  const notes = outcomes.map((o) => o.note)
  await refreshDashboard({ repositoryUrl: input.repositoryUrl, notes, ...(input.run ? { run: input.run } : {}) }, deps)
  return outcomes
}

/** Ticks of boxes the loops offer now: authorized once for the actor, then each applied (and dispatched). */
async function commandTicks(
  ticks: readonly DashboardTick[],
  input: { actor: string; actorType: string },
  deps: TickDeps,
): Promise<TickOutcome[]> {
  const authorization = await deps.authorize(input.actor, input.actorType)
  deps.logger.info(`Dashboard tick from @${input.actor}: ${authorization.reason}`)
  const outcomes: TickOutcome[] = []
  for (const tick of ticks) {
    const what = actionWords(tick.loopId, tick.action)
    if (!authorization.allowed) {
      outcomes.push({
        tick,
        outcome: 'refused',
        note: `${input.actor} ticked ${what}: refused, nothing changed (${authorization.reason.replace(/^@/, '')})`,
      })
      continue
    }
    try {
      const state = await deps.apply(tick.loopId, commandOf(tick.action), input.actor)
      // A resume past `max-loops` waits in line: the writer is told it is not running yet, and why.
      if (state.status === 'queued') {
        const why = state.statusReason ? `: ${state.statusReason}` : ''
        outcomes.push({
          tick,
          outcome: 'queued',
          note: `${input.actor} ticked ${what}: queued, not dispatched yet${why}`,
        })
        continue
      }
      if (state.status !== 'running') {
        outcomes.push({ tick, outcome: 'applied', note: `${input.actor} ticked ${what}: done` })
        continue
      }
      const failed = await deps.dispatch(tick.loopId, state)
      outcomes.push(
        failed
          ? { tick, outcome: 'failed', note: `${input.actor} ticked ${what}: applied, but ${failed}` }
          : {
              tick,
              outcome: 'dispatched',
              note: `${input.actor} ticked ${what}: iteration ${state.iteration + 1} dispatched`,
            },
      )
    } catch (error) {
      outcomes.push({ tick, outcome: 'failed', note: `${input.actor} ticked ${what}: ${(error as Error).message}` })
    }
  }
  return outcomes
}
