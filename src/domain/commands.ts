/**
 * Commands from people: `/loop ...` lines in comments, and labels. The result is
 * typed data: a gate or task name restricted to a safe alphabet, a reason as plain text. Nothing here
 * is ever meant for a shell; a reason reaches commands only as a file or an environment variable.
 */
import { Labels } from './loop-names.js'

/** A command a person gave, from a comment, a label, a review or the `command` input. */
export type LoopCommand =
  /** Start the loop on this issue or pull request, as the start label does; `instructions` add to its task. */
  | { kind: 'start'; instructions?: string }
  | { kind: 'resume' }
  | { kind: 'abort'; reason?: string }
  | { kind: 'approve'; gate: string }
  | { kind: 'skip'; task: string; reason: string }

/** A `/loop` line that was meant as a command but could not be read, with what is expected. */
export interface CommandProblem {
  problem: string
}

export type ParsedCommand = { command: LoopCommand } | CommandProblem

export const GATE_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/
export const TASK_NAME = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$/
export const MAX_REASON_LENGTH = 500

const USAGE =
  'Commands: `/loop start [what to do]`, `/loop approve GATE`, `/loop resume`, `/loop abort`, `/loop skip TASK --reason "why"`.'

/**
 * Reads the first `/loop` command in a comment body. Lines inside code fences and quoted lines
 * (`> ...`, as in a reply) are ignored, so quoting a command never runs it.
 *
 * @returns the command, a problem for a malformed `/loop` line, or null when the body has none.
 */
export function parseCommentCommand(body: string): ParsedCommand | null {
  let fence: string | null = null
  const lines = body.split(/\r?\n/)
  for (const [index, rawLine] of lines.entries()) {
    const line = rawLine.trim()
    const fenceMatch = /^(`{3,}|~{3,})/.exec(line)
    if (fenceMatch) {
      const marker = fenceMatch[1] as string
      if (fence === null) fence = marker
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null
      continue
    }
    if (fence !== null || line.startsWith('>')) continue
    if (!/^\/loop(\s|$)/.test(line)) continue
    const start = /^\/loop\s+start(?:\s+(.*))?$/i.exec(line)
    if (start) {
      // What follows `/loop start`, on its line and below, is the person's own words for the task.
      const instructions = [start[1] ?? '', ...lines.slice(index + 1)].join('\n').trim()
      return { command: instructions ? { kind: 'start', instructions } : { kind: 'start' } }
    }
    return parseCommandLine(line.slice('/loop'.length).trim())
  }
  return null
}

function parseCommandLine(rest: string): ParsedCommand {
  const [verb = '', ...words] = rest.split(/\s+/)
  const argument = rest.slice(verb.length).trim()
  switch (verb.toLowerCase()) {
    case 'resume':
      return { command: { kind: 'resume' } }
    case 'abort': {
      const reason = argument === '' ? undefined : readReason(argument)
      if (reason !== undefined && 'problem' in reason) return reason
      return { command: reason ? { kind: 'abort', reason: reason.text } : { kind: 'abort' } }
    }
    case 'approve': {
      const gate = (words[0] ?? '').toLowerCase()
      if (gate === '')
        return { problem: `\`/loop approve\` needs a gate name, e.g. \`/loop approve security\`. ${USAGE}` }
      if (!GATE_NAME.test(gate) || words.length > 1) {
        return { problem: `\`/loop approve\` takes one gate name (lower-case letters, digits and dashes). ${USAGE}` }
      }
      return { command: { kind: 'approve', gate } }
    }
    case 'skip': {
      const task = words[0] ?? ''
      if (!TASK_NAME.test(task)) {
        return {
          problem: `\`/loop skip\` needs a task name (letters, digits, dot, dash, underscore, colon, slash). ${USAGE}`,
        }
      }
      const afterTask = argument.slice(task.length).trim()
      const reasonMatch = /^--reason(?:=|\s+)([\s\S]*)$/.exec(afterTask)
      if (!reasonMatch)
        return { problem: `\`/loop skip ${task}\` needs \`--reason "why"\`: a skip is recorded with its reason.` }
      const reason = readReason((reasonMatch[1] ?? '').trim())
      if ('problem' in reason) return reason
      return { command: { kind: 'skip', task, reason: reason.text } }
    }
    default:
      return { problem: `Unknown \`/loop\` command${verb ? ` '${verb.slice(0, 40)}'` : ''}. ${USAGE}` }
  }
}

/** A reason: "double quoted" (with \" escapes), 'single quoted', or the rest of the line. */
function readReason(text: string): { text: string } | CommandProblem {
  let reason = text
  const quote = text[0]
  if (quote === '"' || quote === "'") {
    let out = ''
    let closed = false
    for (let i = 1; i < text.length; i++) {
      const char = text[i] as string
      if (char === '\\' && i + 1 < text.length && (text[i + 1] === quote || text[i + 1] === '\\')) {
        out += text[i + 1]
        i++
      } else if (char === quote) {
        closed = true
        break
      } else out += char
    }
    if (!closed) return { problem: `The reason starts with ${quote} but has no closing ${quote}.` }
    reason = out
  }
  reason = reason.trim()
  if (reason === '') return { problem: 'The reason must not be empty.' }
  if (reason.length > MAX_REASON_LENGTH)
    return { problem: `The reason must be at most ${MAX_REASON_LENGTH} characters.` }
  return { text: reason }
}

/** What a label means: `loop/approved:GATE` approves, `loop/stop` is the kill switch. */
export function parseLabel(name: string): Exclude<LoopCommand, { kind: 'start' }> | null {
  if (name === Labels.Stop) return { kind: 'abort', reason: `label ${Labels.Stop}` }
  if (name.startsWith(Labels.ApprovedPrefix)) {
    const gate = name.slice(Labels.ApprovedPrefix.length).trim().toLowerCase()
    return GATE_NAME.test(gate) ? { kind: 'approve', gate } : null
  }
  return null
}

/** True when the kill-switch label is among `labels`. */
export function hasStopLabel(labels: readonly string[]): boolean {
  return labels.includes(Labels.Stop)
}

/** Gates approved by labels among `labels`. */
export function gatesApprovedByLabels(labels: readonly string[]): string[] {
  return labels.flatMap((label) => {
    const command = parseLabel(label)
    return command?.kind === 'approve' ? [command.gate] : []
  })
}

/** Repository permission levels as the API reports them (`role_name`, or the legacy `permission`). */
export type RepositoryPermission = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none'

export const AUTHORIZED_PERMISSIONS: readonly RepositoryPermission[] = ['admin', 'maintain', 'write']

export interface ActorFacts {
  /** The actor's permission on the repository, as asked of the API. */
  permission: string
  /** The account type from the payload: `User`, `Bot`, `Organization`. */
  actorType: string
  actor: string
  /** The login the controller itself posts as (for a GITHUB_TOKEN, `github-actions[bot]`). */
  controllerLogin: string
}

export type Authorization = { allowed: true; reason: string } | { allowed: false; reason: string }

/**
 * Whether a person's command counts: only users with write, maintain or admin permission. Bots and the
 * controller itself are ignored, so the controller's own comments never trigger it.
 */
export function authorizeActor(facts: ActorFacts): Authorization {
  const who = `@${facts.actor}`
  if (facts.actor.toLowerCase() === facts.controllerLogin.toLowerCase()) {
    return { allowed: false, reason: `${who} is the controller itself; its own comments are ignored.` }
  }
  if (facts.actorType === 'Bot' || facts.actor.endsWith('[bot]')) {
    return { allowed: false, reason: `${who} is a bot; only people with write access can command a loop.` }
  }
  const permission = facts.permission.toLowerCase()
  if ((AUTHORIZED_PERMISSIONS as readonly string[]).includes(permission)) {
    return { allowed: true, reason: `${who} has ${permission} permission.` }
  }
  return {
    allowed: false,
    reason: `${who} has ${permission || 'no'} permission; write, maintain or admin is needed to command a loop.`,
  }
}

export interface TriggerAssessment {
  /** True when the triggering code may come from someone without write access. */
  untrusted: boolean
  /** True when the controller must not run work commands for this event. */
  refuse: boolean
  reason: string
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined
}

function fullName(repository: unknown): string | undefined {
  const name = record(repository)?.full_name
  return typeof name === 'string' ? name.toLowerCase() : undefined
}

/**
 * `pull_request_target` and `workflow_run` run with the base repository's secrets; when the code they
 * would act on comes from a fork, running work commands on it hands those secrets to a stranger.
 * Refused unless `allowUntrusted`: the action input's explicit opt-in, from the workflow file (never the
 * loop config, which such a fork can change).
 */
export function isUntrustedTrigger(
  eventName: string,
  payload: Record<string, unknown>,
  allowUntrusted: boolean,
): TriggerAssessment {
  const base = fullName(payload.repository)
  let untrusted = false
  let why = ''
  if (eventName === 'pull_request_target') {
    const head = fullName(record(record(payload.pull_request)?.head)?.repo)
    untrusted = head === undefined || head !== base
    why = head === undefined ? 'its head repository is unknown (deleted fork?)' : `its head is the fork ${head}`
  } else if (eventName === 'workflow_run') {
    const run = record(payload.workflow_run)
    const head = fullName(run?.head_repository)
    untrusted = head === undefined || head !== base
    why = head === undefined ? 'the head repository of the run is unknown' : `the run's code comes from ${head}`
  }
  if (!untrusted) return { untrusted: false, refuse: false, reason: `${eventName} on trusted code.` }
  if (allowUntrusted) {
    return {
      untrusted: true,
      refuse: false,
      reason: `${eventName}: ${why}; running anyway because allow-untrusted is set.`,
    }
  }
  return {
    untrusted: true,
    refuse: true,
    reason: `Refusing to run work commands under ${eventName}: ${why}. Untrusted code would run with this repository's secrets. Set 'allow-untrusted: true' under the action's 'with:' in the workflow file (the action input 'allow-untrusted'; the loop config cannot set it) only if you accept that.`,
  }
}
