/**
 * The sweeper's judgement of the slots (`command: sweep`): a slot is freed only when its holder's state
 * says it ended, and a job that dies (cancelled in the Actions tab, a lost runner, `timeout-minutes`)
 * leaves that state `running` for good. Each holder records the run that has it; the sweeper asks
 * GitHub about that run, and this decides from the answer and the loop's state. Pure.
 */
import type { SlotHolder } from './slots.js'
import type { DispatchRecord, LoopState } from './state.js'

/** What GitHub says of a holder's run (`GET .../actions/runs/{run_id}`). */
export type RunFact =
  | { kind: 'active'; status: string }
  | { kind: 'over'; conclusion: string }
  | { kind: 'unknown'; why: string }

export type HolderVerdict =
  /** Left as it is. */
  | { kind: 'keep'; reason: string }
  /** Its job died with the loop `running`: the loop is marked BLOCKED (a person resumes it), its slot freed. */
  | { kind: 'block'; reason: string }
  /** Admitted, but the run dispatched to start it ended before it did: dispatched again, keeping the slot. */
  | { kind: 'restart'; reason: string }
  /** Its slot is freed now (an aborted loop whose last job ended, a loop with no state). */
  | { kind: 'free'; reason: string }

export interface HolderFacts {
  holder: SlotHolder
  state: Pick<LoopState, 'status' | 'iteration' | 'dispatch'> | null
  /** Null when the holder records no run. */
  run: RunFact | null
}

/**
 * Whether the sweeper frees, restarts or keeps `facts.holder`'s slot. A running loop whose next
 * iteration is dispatched is the dispatch sweep's (`domain/sweep.ts`: re-dispatched when the dispatch
 * failed or went stale), unless the run that took that dispatch is over without success: BLOCKED, as
 * any job that died holding a slot; one at a gate keeps its slot by design. A run that ended `success` without
 * dispatching the next iteration is a workflow with `dispatch: false`, not a death: kept.
 */
export function judgeHolder(facts: HolderFacts, now: Date, staleAfterMs: number): HolderVerdict {
  const { holder, state, run } = facts
  const runName = holder.run ? `run ${holder.run}` : 'its run'
  if (!state) return { kind: 'free', reason: 'it has no state' }
  if (state.status === 'complete' || state.status === 'blocked' || state.status === 'capped') {
    return { kind: 'free', reason: `it is ${state.status}` }
  }
  if (state.status === 'aborted') {
    if (holder.stopping && run?.kind === 'active') {
      return { kind: 'keep', reason: `aborted; ${runName} still runs its iteration (${run.status})` }
    }
    return { kind: 'free', reason: 'it is aborted and no job of it runs' }
  }
  if (state.status === 'waiting') return { kind: 'keep', reason: 'it waits for a person, holding its slot' }
  if (state.status === 'queued') {
    if (run === null) {
      const waitedMs = now.getTime() - Date.parse(holder.since)
      if (waitedMs < staleAfterMs) {
        return { kind: 'keep', reason: `admitted ${minutes(waitedMs)} ago; its job may not have started yet` }
      }
      return { kind: 'restart', reason: `admitted ${minutes(waitedMs)} ago and never started (no run is recorded)` }
    }
    if (run.kind === 'over') {
      return {
        kind: 'restart',
        reason: `admitted, but ${runName} ended (${run.conclusion}) before it started the loop`,
      }
    }
    return { kind: 'keep', reason: run.kind === 'active' ? `${runName} is ${run.status}` : `${runName}: ${run.why}` }
  }
  // running
  const pending = state.dispatch
  if (pending && pending.iteration === state.iteration + 1) {
    // The run that took the dispatched iteration holds the slot and saves nothing until the iteration ends:
    // over and not `success`, it died with it, and a dispatch again would die again (`timeout-minutes`).
    if (run?.kind === 'over' && run.conclusion !== 'success' && tookDispatch(holder, pending)) {
      return {
        kind: 'block',
        reason: `its job's ${runName} took iteration ${pending.iteration} and ended (${run.conclusion}) without saving it; the sweeper freed its slot`,
      }
    }
    return { kind: 'keep', reason: `iteration ${pending.iteration} is dispatched (the dispatch sweep looks after it)` }
  }
  if (run === null) return { kind: 'keep', reason: 'no run is recorded for its slot' }
  if (run.kind === 'active') return { kind: 'keep', reason: `${runName} is ${run.status}` }
  if (run.kind === 'unknown') return { kind: 'keep', reason: `${runName}: ${run.why}` }
  if (run.conclusion === 'success') {
    return { kind: 'keep', reason: `${runName} succeeded without dispatching the next iteration (dispatch: false)` }
  }
  return {
    kind: 'block',
    reason: `its job's ${runName} ended (${run.conclusion}) without saving iteration ${state.iteration + 1} or dispatching the next; the sweeper freed its slot`,
  }
}

/**
 * Whether the holder's run took `pending` rather than made it: a loop's job records its run with the slot
 * when it asks, so a run other than the one that dispatched is the dispatched one. After the sweeper's
 * own dispatch the holder may still be the run whose dispatch went stale: the dispatch sweep's bound
 * (once) decides that case.
 */
function tookDispatch(holder: SlotHolder, pending: DispatchRecord): boolean {
  return holder.run !== undefined && (pending.sweeps ?? 0) === 0 && pending.by !== `run ${holder.run}`
}

/**
 * The reason a job saves before it asks for the loop's place in line (a new loop's first job, a person's
 * resume that must ask for a slot): not in line yet.
 */
export const ASKING_FOR_SLOT = 'asking for a slot'

/**
 * A resumed loop that must ask for a slot before it runs: saved `queued`, asking, in the resume's own save,
 * so a job that fails or dies before it has its slot leaves a loop the sweeper sees (`judgeOutOfLine`) and
 * a person may resume again, never one `running` with no job. Any other state is returned as it is.
 */
export function askingForSlot(state: LoopState): LoopState {
  return state.status === 'running' ? { ...state, status: 'queued', statusReason: ASKING_FOR_SLOT } : state
}

/**
 * A loop whose job saved it `queued` (`ASKING_FOR_SLOT`: a new loop's first job, or a person's resume)
 * and then failed before queue.json named it (a lease never won, a fetch or push refused, queue.json
 * unreadable): no change of the queue ever reaches it, and no job of it runs again. Past `staleAfterMs` it is BLOCKED for a person (a resume queues it like a new loop);
 * null leaves it (in line, named by the record, or its job may still be asking).
 */
export function judgeOutOfLine(
  state: Pick<LoopState, 'status' | 'statusReason' | 'updatedAt'>,
  named: boolean,
  now: Date,
  staleAfterMs: number,
): Extract<HolderVerdict, { kind: 'block' }> | null {
  if (named || state.status !== 'queued' || state.statusReason !== ASKING_FOR_SLOT) return null
  const waitedMs = now.getTime() - Date.parse(state.updatedAt)
  if (waitedMs < staleAfterMs) return null
  return {
    kind: 'block',
    reason: `a job saved it queued ${minutes(waitedMs)} ago (asking for a slot: its first job, or a resume) but failed before it took a place in line (queue.json never named it), so no loop ending would start it`,
  }
}

/** What a person reads as the BLOCKED loop's reason. */
export function strandedReason(verdict: Extract<HolderVerdict, { kind: 'block' }>): string {
  return `${verdict.reason}. Resume it with \`/loop resume\` (it queues for a slot like a new loop).`
}

function minutes(ms: number): string {
  return `${Math.max(0, Math.round(ms / 60_000))} min`
}
