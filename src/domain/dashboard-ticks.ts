/**
 * Reading a person's ticks on the dashboard issue: GitHub sends the edited body and the body before the
 * edit (`changes.body.from`). A tick counts only on a line the controller writes for the loops as they
 * stand (same marker, same words), unticked before and ticked now. A line someone added or reworded, a
 * marker for an action the loop does not offer, a box ticked before, or an untick counts for nothing.
 * Pure.
 */
import type { DashboardAction, DashboardBox } from './report/dashboard.js'
import { MARKER_PATTERN } from './report/dashboard.js'

export interface DashboardTick {
  loopId: string
  action: DashboardAction
  /** The box's words, for the log and the notes. */
  line: string
}

export interface TickReading {
  ticks: DashboardTick[]
  /** Ticked lines with a marker of ours that did not count, and why (for the log). */
  ignored: string[]
}

const TICKED = /^- \[[xX]\] /
const UNTICKED = '- [ ] '

function linesOf(body: string): string[] {
  return body.split(/\r?\n/).map((line) => line.trimEnd())
}

/** The ticks made between `before` and `after`, given the boxes the controller offers now. */
export function readTicks(before: string, after: string, offered: readonly DashboardBox[]): TickReading {
  const was = new Set(linesOf(before))
  const ticks: DashboardTick[] = []
  const ignored: string[] = []
  const counted = new Set<string>()
  for (const line of linesOf(after)) {
    if (!TICKED.test(line) || !MARKER_PATTERN.test(line)) continue
    const rest = line.replace(TICKED, '')
    const box = offered.find((candidate) => candidate.line === `${UNTICKED}${rest}`)
    if (!box) {
      ignored.push(`'${rest.slice(0, 120)}': not a box the dashboard offers for the loops as they stand`)
      continue
    }
    if (!was.has(box.line)) {
      ignored.push(`'${rest.slice(0, 120)}': not unticked before this edit`)
      continue
    }
    if (counted.has(box.marker)) continue
    counted.add(box.marker)
    ticks.push({ loopId: box.loopId, action: box.action, line: rest.replace(MARKER_PATTERN, '').trim() })
  }
  return { ticks, ignored }
}
