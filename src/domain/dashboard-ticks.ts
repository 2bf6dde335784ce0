/**
 * Reading a person's ticks on the dashboard issue: GitHub sends the edited body and the body before the
 * edit (`changes.body.from`). A box is known by its hidden marker (loop, action, gate), which opens the
 * line right after the checkbox as the controller writes it; its words carry live state (a status, a
 * reason) that may have moved since the body was written, so they do not identify it. A tick counts on
 * a box that was unticked before the edit and is ticked after it. When the loops still offer its action
 * it is a command; when they no longer do (the loop moved on before the tick's job ran) it is `stale`:
 * said under the table and unticked by the rewrite, never silently left ticked. A box added by the edit,
 * a box ticked before, a marker elsewhere on a line, or an untick counts for nothing. Pure.
 */
import type { DashboardAction, DashboardBox } from './report/dashboard.js'
import { boxMarker, MARKER_PATTERN, parseMarker } from './report/dashboard.js'

export interface DashboardTick {
  loopId: string
  action: DashboardAction
  /** The box's words, for the log and the notes. */
  line: string
}

export interface TickReading {
  /** Ticks of boxes the loops offer now: commands to apply. */
  ticks: DashboardTick[]
  /** Ticks of boxes the body showed whose action the loops no longer offer: said, nothing applied. */
  stale: DashboardTick[]
  /** Ticked lines with a marker of ours that did not count, and why (for the log). */
  ignored: string[]
}

/** A box as written: `- [ ] <!-- loop-dashboard:… -->` and its words; group 1 is the tick, 2 the marker. */
const BOX_LINE = new RegExp(`^- \\[([ xX])\\] (${MARKER_PATTERN.source})(.*)$`)

interface BoxLine {
  ticked: boolean
  marker: string
  loopId: string
  action: DashboardAction
  words: string
}

function boxLines(body: string): BoxLine[] {
  return body.split(/\r?\n/).flatMap((raw) => {
    const match = BOX_LINE.exec(raw.trimEnd())
    const parsed = match ? parseMarker(match[2] ?? '') : null
    if (!match || !parsed) return []
    // The marker re-made from what it names: one box has one marker, however it was spelled.
    const marker = boxMarker(parsed.loopId, parsed.action)
    return [{ ticked: match[1] !== ' ', marker, ...parsed, words: (match.at(-1) ?? '').trim() }]
  })
}

/** The ticks made between `before` and `after`, given the boxes the controller offers now. */
export function readTicks(before: string, after: string, offered: readonly DashboardBox[]): TickReading {
  const untickedBefore = new Set(
    boxLines(before)
      .filter((box) => !box.ticked)
      .map((box) => box.marker),
  )
  const reading: TickReading = { ticks: [], stale: [], ignored: [] }
  const counted = new Set<string>()
  for (const box of boxLines(after)) {
    if (!box.ticked || counted.has(box.marker)) continue
    if (!untickedBefore.has(box.marker)) {
      reading.ignored.push(`'${box.marker} ${box.words.slice(0, 120)}': not a box unticked before this edit`)
      continue
    }
    counted.add(box.marker)
    const now = offered.find((candidate) => candidate.marker === box.marker)
    if (now) {
      const words = now.line
        .replace(/^- \[ \] /, '')
        .replace(MARKER_PATTERN, '')
        .trim()
      reading.ticks.push({ loopId: box.loopId, action: box.action, line: words })
    } else {
      reading.stale.push({ loopId: box.loopId, action: box.action, line: box.words })
    }
  }
  return reading
}
