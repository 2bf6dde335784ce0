/**
 * A dispatched iteration that finds its loop's state missing, or older than the dispatch says it must
 * be, met a store that lost data (a cache entry evicted, an artifact snapshot expired). Starting over
 * quietly would forget the loop's history and budgets; going on from an older snapshot would redo
 * iterations no one sees. Either way the loop stops BLOCKED with this reason, and a person decides.
 */

/** The store kinds (as `Store.kind` names them) and how each can lose a state. */
const HOW_LOST: Record<string, string> = {
  cache:
    'the cache entry was evicted (unused for 7 days, or the repository over its cache quota) or saved on another ref',
  artifact: 'the artifact snapshot expired (its retention days) or was deleted',
  auto: 'the cache entry was evicted and the artifact snapshot expired or was never mirrored',
  git: 'the state branch no longer holds it (deleted or rewritten)',
  file: 'the state file is gone',
}

/**
 * Why iteration `dispatched` cannot go on from what the store holds (`storedIteration`, null when it
 * holds nothing), or null when it can: a first iteration, or a state at the iteration before it.
 */
export function lostStateReason(
  storeKind: string,
  dispatched: number | undefined,
  storedIteration: number | null,
): string | null {
  if (dispatched === undefined || dispatched <= 1) return null
  const how = HOW_LOST[storeKind] ?? 'the store no longer holds it'
  const previous = dispatched - 1
  if (storedIteration === null) {
    return (
      `the state of iteration ${previous} was not found in the ${storeKind} store: ${how}. ` +
      `\`/loop resume\` restarts from iteration ${dispatched} with a fresh state (the failures, budgets and history of iterations 1 to ${previous} are lost; the loop's branch keeps their commits)`
    )
  }
  if (storedIteration >= previous) return null
  return (
    `the stored state is of iteration ${storedIteration}, but iteration ${dispatched} was dispatched: the state of iteration ${previous} was lost from the ${storeKind} store (${how}). ` +
    `\`/loop resume\` goes on from that older state with iteration ${storedIteration + 1}`
  )
}
