/**
 * What the loop knows of an agent CLI it drives: how to call it without a person at the keyboard, and
 * what its output says about usage, its session and whether it failed. Pure.
 */

/** The agent presets; `command` is the escape hatch (any command line, under the work command contract). */
export const AGENT_NAMES = ['claude', 'codex', 'gemini', 'aider', 'command'] as const
export type AgentName = (typeof AGENT_NAMES)[number]

/**
 * An agent name as the loop reads it, in any case: GitHub's `==` ignores case, so the reusable workflow
 * installs claude's CLI for `agent: Claude`, and the controller takes the same name as it does.
 */
export function agentNameKey(value: string): string {
  return value.toLowerCase()
}
/** The presets that drive a known CLI. */
export type PresetName = Exclude<AgentName, 'command'>

/** The config's agent settings (`agent`, `agent-args`, `model`, `max-turns`). */
export interface AgentSettings {
  name: PresetName
  /** Extra arguments appended to the preset's own (after them, so a later flag wins where the CLI allows). */
  args: readonly string[]
  model?: string | undefined
  maxTurns?: number | undefined
}

/** What one call needs to know beyond the settings. */
export interface AgentCallInput {
  /** The prompt file the controller wrote (`LOOP_PROMPT_FILE`); handed on standard input. */
  promptFile: string
  /** The session (or thread) the previous call reported, to resume; null starts a new one. */
  session: string | null
  /** The loop's USD budget left, when it has one: held inside the call where the CLI can. */
  remainingUsd: number | null
  /**
   * Whether the CLI can start its own sandbox where it runs (see `IsolationReport.nestedSandbox`). When
   * it cannot, a preset whose CLI would otherwise fail every edit runs without it, inside the
   * controller's isolation, and says so.
   */
  ownSandbox: boolean
}

/** How to start the CLI: an argv (never a shell line), with the prompt on standard input where it reads it there. */
export interface AgentCall {
  argv: string[]
  stdinFile: string | null
  /** A line for the journey about a choice the preset made for this call (its sandbox, say). */
  note?: string
}

/** Why an agent call failed, in the loop's terms. */
export type AgentFailureKind =
  | 'overloaded'
  | 'rate-limit'
  | 'server-error'
  | 'network'
  | 'auth'
  | 'quota'
  | 'max-turns'
  | 'budget'
  | 'bad-request'
  | 'not-installed'
  | 'timed-out'
  | 'unknown'

export interface AgentFailure {
  kind: AgentFailureKind
  /** Worth calling again after a pause (the API said so: overloaded, rate limited, a 5xx, a dropped link). */
  transient: boolean
  /** One line, from the CLI's own words where it gave some. */
  message: string
}

/** What a CLI's output said about one call. */
export interface AgentReport {
  /** False when the output was not the shape the preset expects (usage unknown; the loop goes on). */
  understood: boolean
  tokens?: number
  costUsd?: number
  /** True when `tokens` is the session's running total rather than this call's (a resumed Codex thread). */
  tokensAreSessionTotal: boolean
  /** True when `costUsd` is the session's running total (a resumed Claude Code session). */
  costIsSessionTotal: boolean
  session?: string
  turns?: number
  failure?: AgentFailure
}
