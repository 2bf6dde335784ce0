/**
 * A check the controller fixed before the work, recorded as such once the verification found it
 * passing: a baseline failure whose declared fix ran first (`act.ts`) is an auto-fix, not a plain pass,
 * for the single job and for fan-out's decide (whose plan ran the fix) alike.
 */
import type { JourneyEvent } from '../../domain/journey.js'
import { isFailing } from '../step-support.js'
import type { LiveCheck } from '../verification.js'
import { type IterationRecord, type IterationRun, verifyNote, withEvents } from './record.js'

export async function fixedFirst(run: IterationRun, record: IterationRecord): Promise<IterationRecord> {
  if (!record.previousIsFresh || record.remediesRun.fixes.length === 0) return record
  const autoFixed = [...record.autoFixed]
  const events: JourneyEvent[] = []
  const checks = record.checks.map((live): LiveCheck => {
    const name = live.check.name
    const wasFixedFirst =
      record.remediesRun.fixes.includes(name) && record.previous.some((failure) => failure.check === name)
    if (isFailing(live.result) || !wasFixedFirst || autoFixed.includes(name)) return live
    autoFixed.push(name)
    events.push(verifyNote(run, 'auto-fix', `${name}: fixed by its fix command before the work (no agent call)`))
    return { ...live, result: { ...live.result, autoFixed: true } }
  })
  return withEvents({ ...record, checks, autoFixed }, ...events)
}
