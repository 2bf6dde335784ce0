/**
 * What a GitHub event asks of the controller, read from its payload (pure: the payload is data).
 * Comments, labels and reviews are people's commands; they still need `authorizeActor`.
 */

import { type LoopCommand, parseCommentCommand, parseLabel } from './commands.js'
import { Labels } from './loop-names.js'
import { type LoopTask, taskFromEvent } from './loop-task.js'

export type EventIntent =
  /** Nothing here is for the controller (an unrelated comment, label or review). */
  | { kind: 'none'; why: string }
  /** Run an iteration: a dispatch, a schedule, a push (the workflow file decided who may cause these). */
  | { kind: 'run' }
  /**
   * The start label or a `/loop start` comment: runs an iteration once the person is authorized like a
   * command; a comment's words after `/loop start` are `instructions` for the task.
   */
  | { kind: 'start'; actor: string; actorType: string; via: 'label' | 'comment'; instructions?: string }
  /** A person's command, to authorize and then apply. */
  | {
      kind: 'command'
      command: Exclude<LoopCommand, { kind: 'start' }>
      actor: string
      actorType: string
      via: 'comment' | 'label' | 'review'
    }
  /**
   * The loop's pull request was merged (`pull_request` `closed` with `merged`): a loop waiting in SHIP
   * for this merge completes now, not at some later dispatch.
   */
  | { kind: 'merged'; number: number; actor: string }
  /** An approving pull request review: approves the loop's pending gates. */
  | { kind: 'review-approval'; actor: string; actorType: string }
  /** A `/loop` line that could not be read. */
  | { kind: 'problem'; problem: string; actor: string; actorType: string }

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

function userOf(value: unknown): { actor: string; actorType: string } {
  const user = record(value)
  return { actor: text(user.login), actorType: text(user.type) || 'User' }
}

/** Reads the intent of `eventName` with `payload`. */
export function interpretEvent(eventName: string, payload: Record<string, unknown>): EventIntent {
  switch (eventName) {
    case 'issue_comment': {
      if (text(payload.action) !== 'created') return { kind: 'none', why: `comment ${text(payload.action)}` }
      const comment = record(payload.comment)
      const who = userOf(comment.user)
      const parsed = parseCommentCommand(text(comment.body))
      if (!parsed) return { kind: 'none', why: 'the comment holds no /loop command' }
      if ('problem' in parsed) return { kind: 'problem', problem: parsed.problem, ...who }
      const { command } = parsed
      if (command.kind === 'start') {
        const { instructions } = command
        return { kind: 'start', via: 'comment', ...who, ...(instructions ? { instructions } : {}) }
      }
      return { kind: 'command', command, via: 'comment', ...who }
    }
    case 'issues':
    case 'pull_request':
    case 'pull_request_target': {
      // Labels speak to the loop here, and a merge ends SHIP's wait: a pull request that is opened or
      // updated (often by the loop's own push) must not start an iteration outside the dispatch chain.
      const pull = record(payload.pull_request)
      if (eventName !== 'issues' && text(payload.action) === 'closed') {
        if (pull.merged !== true) return { kind: 'none', why: 'the pull request was closed without merging' }
        const number = typeof pull.number === 'number' ? pull.number : 0
        return { kind: 'merged', number, actor: userOf(record(pull.merged_by)).actor || userOf(payload.sender).actor }
      }
      if (text(payload.action) !== 'labeled') return { kind: 'none', why: `${eventName} ${text(payload.action)}` }
      const label = text(record(payload.label).name)
      const who = userOf(payload.sender)
      if (label === Labels.Start) return { kind: 'start', via: 'label', ...who }
      const command = parseLabel(label)
      if (!command) return { kind: 'none', why: `label '${label}' is not for the loop` }
      return { kind: 'command', command, via: 'label', ...who }
    }
    case 'pull_request_review': {
      const review = record(payload.review)
      const who = userOf(review.user)
      const parsed = parseCommentCommand(text(review.body))
      if (parsed && 'problem' in parsed) return { kind: 'problem', problem: parsed.problem, ...who }
      if (parsed) {
        const { command } = parsed
        if (command.kind === 'start')
          return { kind: 'problem', problem: '`/loop start` goes in a comment on the issue or pull request.', ...who }
        return { kind: 'command', command, via: 'review', ...who }
      }
      if (text(review.state).toLowerCase() === 'approved') return { kind: 'review-approval', ...who }
      return { kind: 'none', why: `a review that does not approve (${text(review.state)})` }
    }
    default:
      return { kind: 'run' }
  }
}

/** The issue or pull request an event is about, and its labels. */
export function subjectOf(payload: Record<string, unknown>): {
  number: number | null
  isPullRequest: boolean
  labels: string[]
  headRef: string | null
} {
  const pull = record(payload.pull_request)
  const issue = record(payload.issue)
  const source = typeof pull.number === 'number' ? pull : issue
  const labels = Array.isArray(source.labels) ? source.labels.map((label) => text(record(label).name)) : []
  return {
    number: typeof source.number === 'number' ? source.number : null,
    isPullRequest: source === pull || Object.keys(record(issue.pull_request)).length > 0,
    labels: labels.filter(Boolean),
    headRef: text(record(pull.head).ref) || null,
  }
}

/**
 * The workflow file and ref to re-dispatch, from `GITHUB_WORKFLOW_REF`
 * (`owner/repo/.github/workflows/loop.yml@refs/heads/main`). For a reusable workflow this names the
 * caller, which is the one that accepts `workflow_dispatch`.
 */
export function parseWorkflowRef(workflowRef: string): { file: string; ref: string } | null {
  const match = /^[^/]+\/[^/]+\/\.github\/workflows\/([^@/]+\.ya?ml)@(.+)$/.exec(workflowRef.trim())
  if (!match) return null
  return { file: match[1] as string, ref: match[2] as string }
}

/**
 * The task a starting loop takes from this event: the issue or pull request it is about, with the
 * words a `/loop start` comment added (quoted text, see `loop-task.ts`).
 */
export function taskOfEvent(eventName: string, payload: Record<string, unknown>): LoopTask | null {
  const intent = interpretEvent(eventName, payload)
  const words =
    intent.kind === 'start' && intent.instructions ? { text: intent.instructions, author: intent.actor } : undefined
  return taskFromEvent(payload, words)
}
