/**
 * The order the dashboard and `status --all` list loops in: by id, its numbers compared by value
 * (`issue-2` before `issue-10`), so a long list reads as people count. Pure.
 */
import type { LoopState } from '../state.js'

const CHUNK = /(\d+)/

/** Compares two loop ids chunk by chunk: digit runs by value, the rest as text; ties by the plain text. */
export function compareLoopIds(a: string, b: string): number {
  const left = a.split(CHUNK)
  const right = b.split(CHUNK)
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const x = left[i] ?? ''
    const y = right[i] ?? ''
    if (x === y) continue
    // split() puts digit runs at odd indexes.
    if (i % 2 === 1) {
      const byValue = compareDigits(x, y)
      if (byValue !== 0) return byValue
    }
    return x < y ? -1 : 1
  }
  if (left.length !== right.length) return left.length - right.length
  return a < b ? -1 : a > b ? 1 : 0
}

/** Digit runs by value, exact at any length (no Number overflow): leading zeros aside, longer is larger. */
function compareDigits(x: string, y: string): number {
  const a = x.replace(/^0+(?=\d)/, '')
  const b = y.replace(/^0+(?=\d)/, '')
  if (a.length !== b.length) return a.length - b.length
  return a < b ? -1 : a > b ? 1 : 0
}

/** A loop that waits for a person: BLOCKED, capped, or with a gate to approve. */
export function needsPerson(state: LoopState | null): boolean {
  if (!state) return false
  if (state.status === 'blocked' || state.status === 'capped' || state.status === 'waiting') return true
  return Object.values(state.gates).some((gate) => gate?.status === 'pending')
}
