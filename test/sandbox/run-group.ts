// A run in its workflow-level concurrency group: its jobs wait pending with it until the group lets it
// start; a newer run may cancel it while it waits, or interrupt it while it runs (cancel-in-progress).
import type { GroupMember } from './concurrency.js'
import type { Conclusion, JobRecord, RunState } from './job-record.js'
import type { RunGraph } from './run-graph.js'

export interface RunGroupHooks {
  begin: () => void
  end: () => void
  finish: (record: JobRecord, conclusion: Conclusion, reason: string) => void
  cancel: (record: JobRecord, reason: string) => void
}

/** Marks the run's jobs pending in `group` and returns the run's member of that group. */
export function runGroupMember(run: RunState, graph: RunGraph, group: string, hooks: RunGroupHooks): GroupMember {
  for (const record of run.records) {
    record.concurrencyGroup = group
    record.status = 'pending'
  }
  return {
    start: hooks.begin,
    cancel: (reason) => {
      run.cancelled = true
      for (const record of graph.allRecords()) hooks.finish(record, 'cancelled', reason)
      hooks.end()
    },
    // The running jobs are killed; the run graph decides for the others (an `if: cancelled()` job runs).
    interrupt: (reason) => {
      run.cancelled = true
      for (const record of run.records) {
        if (record.status === 'running') hooks.cancel(record, reason)
        else if (record.status === 'pending') hooks.finish(record, 'cancelled', reason)
      }
    },
  }
}
