/** One line of `journey-log.jsonl`: what happened, when, in which iteration. */
export interface JourneyEvent {
  at: string
  iteration: number
  type:
    | 'loop-started'
    | 'iteration-started'
    | 'decision'
    | 'work'
    | 'check'
    | 'analysis'
    | 'progress'
    | 'auto-fix'
    | 'flaky'
    | 'regression'
    | 'transition'
    | 'gate'
    | 'approval'
    | 'task-skipped'
    | 'checkpoint'
    | 'escalated'
    | 'capped'
    | 'cap-changed'
    | 'pull-request'
    | 'commit-lost'
    | 'completed'
    | 'aborted'
    | 'resumed'
    | 'superseded'
    | 'dead-letter'
    | 'guard'
    | 'queued'
    | 'admitted'
  message: string
  data?: Record<string, unknown>
}
