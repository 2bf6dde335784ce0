/**
 * The kill switch read from the loop itself: the `loop/stop` label on the loop's pull request or on
 * the issue it works on. A dispatched iteration's event is about neither, so the labels are asked of
 * the API at the start of every iteration instead of read from the event.
 */
import { hasStopLabel } from '../domain/commands.js'
import { issueOfLoop } from '../domain/depends-on.js'
import type { LoopState } from '../domain/state.js'
import type { GitHubPort } from '../ports/github.js'

interface LoopSubject {
  kind: 'issue' | 'pull request'
  number: number
}

/**
 * The issue and pull request the loop belongs to: its pull request, and the task it started from; a
 * state without its task (the store lost the one that had it) still belongs to the issue its id names.
 */
export function loopSubjects(state: LoopState): LoopSubject[] {
  const subjects: LoopSubject[] = []
  if (state.pullRequest) subjects.push({ kind: 'pull request', number: state.pullRequest.number })
  const task = state.task
  const issue = task ? null : issueOfLoop(state.loopId)
  const own: LoopSubject | null = task
    ? { kind: task.source === 'issue' ? 'issue' : 'pull request', number: task.number }
    : issue === null
      ? null
      : { kind: 'issue', number: issue }
  if (own && own.number !== state.pullRequest?.number) subjects.push(own)
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
