/**
 * The kill switch read from the loop itself: the `loop/stop` label on the loop's pull request or on
 * the issue it works on. A dispatched iteration's event is about neither, so the labels are asked of
 * the API at the start of every iteration instead of read from the event.
 */
import { hasStopLabel } from '../domain/commands.js'
import type { LoopState } from '../domain/state.js'
import type { GitHubPort } from '../ports/github.js'

interface LoopSubject {
  kind: 'issue' | 'pull request'
  number: number
}

/** The issue and pull request the loop belongs to: its pull request, and the task it started from. */
export function loopSubjects(state: LoopState): LoopSubject[] {
  const subjects: LoopSubject[] = []
  if (state.pullRequest) subjects.push({ kind: 'pull request', number: state.pullRequest.number })
  const task = state.task
  if (task && task.number !== state.pullRequest?.number) {
    subjects.push({ kind: task.source === 'issue' ? 'issue' : 'pull request', number: task.number })
  }
  return subjects
}

/** Where the stop label is set on the loop's issue or pull request (`pull request #3`), or null. */
export function stopLabelReader(github: Pick<GitHubPort, 'listLabels'>): (state: LoopState) => Promise<string | null> {
  return async (state) => {
    for (const subject of loopSubjects(state)) {
      if (hasStopLabel(await github.listLabels(subject.number))) return `${subject.kind} #${subject.number}`
    }
    return null
  }
}
