/**
 * What people ask of a loop outside an iteration: resume, skip a task, approve or reject a gate, abort.
 * Shared by the CLI and the action: load, apply the engine's pure command, save with compare-and-swap,
 * record the events.
 */
import { abort, approveGate, changeCap, rejectGate, resume, skipTask } from '../domain/engine/index.js'
import type { JourneyEvent } from '../domain/journey.js'
import type { Policy } from '../domain/policy.js'
import { askingForSlot } from '../domain/slot-sweep.js'
import type { LoopState } from '../domain/state.js'
import type { AuditLog } from '../ports/audit.js'
import type { Clock } from '../ports/clock.js'
import { type Store, StoreConflictError } from '../ports/store.js'
import { saveWithEvents } from './journaled-save.js'

export type PeopleCommand =
  /**
   * `cap`: an iteration cap given with the resume (a flag, an input), applied first, so it can lift the
   * cap that capped the loop; `budget`: the config's, which a capped loop's budgets are checked against.
   */
  | { kind: 'resume'; cap?: number | undefined; capReason?: string | undefined; budget?: Policy['budget'] | undefined }
  | { kind: 'abort'; reason?: string }
  | { kind: 'approve'; gate: string }
  | { kind: 'reject'; gate: string }
  | { kind: 'skip'; task: string; reason: string }

export class NoLoopError extends Error {
  override name = 'NoLoopError'
}

/**
 * Applies a person's command to the stored loop; throws NoLoopError when there is none. An abort of a
 * loop never saved yet (its first iteration still running, or not started) records the loop as aborted
 * when `fresh` can start one, so the run that saves later, or a later run, stops instead of going on.
 * `resumeAsksForSlot`: a resume that makes the loop run is saved `queued`, asking for a slot
 * (`askingForSlot`); the caller then asks for one.
 */
export async function applyPeopleCommand(
  command: PeopleCommand,
  input: { loopId: string; by: string; fresh?: (now: Date) => LoopState; resumeAsksForSlot?: boolean },
  deps: { store: Store; clock: Clock; audit: AuditLog },
): Promise<LoopState> {
  // A running iteration may save between this load and this save: the command is applied again to
  // what it saved, so a person's command is never lost to a race it did not see.
  for (let attempt = 1; ; attempt++) {
    try {
      return await applyOnce(command, input, deps)
    } catch (error) {
      if (!(error instanceof StoreConflictError) || attempt >= CONFLICT_ATTEMPTS) throw error
    }
  }
}

const CONFLICT_ATTEMPTS = 5

async function applyOnce(
  command: PeopleCommand,
  input: { loopId: string; by: string; fresh?: (now: Date) => LoopState; resumeAsksForSlot?: boolean },
  deps: { store: Store; clock: Clock; audit: AuditLog },
): Promise<LoopState> {
  const now = deps.clock.now()
  const stored = await deps.store.load(input.loopId)
  const loaded = stored ?? (command.kind === 'abort' && input.fresh ? { state: input.fresh(now), version: null } : null)
  if (!loaded) throw new NoLoopError(`There is no loop '${input.loopId}' in ${deps.store.describe(input.loopId)}.`)
  let applied: { state: LoopState; events: JourneyEvent[] }
  switch (command.kind) {
    case 'resume': {
      const capped =
        command.cap !== undefined
          ? changeCap(loaded.state, command.cap, now, command.capReason)
          : { state: loaded.state, events: [] }
      const resumed = resume(capped.state, input.by, now, command.budget)
      const merged = { state: resumed.state, events: [...capped.events, ...resumed.events] }
      applied = input.resumeAsksForSlot ? { ...merged, state: askingForSlot(merged.state) } : merged
      break
    }
    case 'abort':
      applied = abort(loaded.state, input.by, now, command.reason)
      break
    case 'approve':
      applied = approveGate(loaded.state, command.gate, input.by, now)
      break
    case 'reject':
      applied = rejectGate(loaded.state, command.gate, input.by, now)
      break
    case 'skip':
      applied = skipTask(loaded.state, command.task, command.reason, input.by, now)
      break
  }
  await saveWithEvents(input.loopId, applied.state, applied.events, loaded.version, deps)
  return applied.state
}
