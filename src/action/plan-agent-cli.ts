/**
 * The reusable workflow installs a preset's CLI only when its `agent` input names the preset: a loop
 * config's `agent: claude` alone leaves the plan job (or the single job) without `claude`. Both refuse that
 * before the work and before any state is saved, saying which input to set, rather than calling an agent
 * that is not there and saving the loop BLOCKED with advice a caller of the workflow cannot follow.
 */
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'
import { ConfigError } from '../config/errors.js'
import type { AgentName } from '../domain/agents/types.js'

/** The presets the reusable workflow installs (`Install the agent CLI`), and the program each puts on PATH. */
const WORKFLOW_INSTALLS: Partial<Record<AgentName, string>> = { claude: 'claude', codex: 'codex', gemini: 'gemini' }

/**
 * Throws a `ConfigError` when the config names a preset the workflow would install, the `agent`
 * input is empty (`inputAgent` undefined), and no such program is on `path`.
 */
export function refuseAgentWithoutCli(
  configAgent: AgentName,
  inputAgent: AgentName | undefined,
  configPath: string,
  path: string,
): void {
  const problem = agentCliProblem(configAgent, inputAgent, configPath, path)
  if (problem !== null) throw new ConfigError(problem)
}

/** What `refuseAgentWithoutCli` would throw, or null when the agent's CLI is there (or not the workflow's to install). */
export function agentCliProblem(
  configAgent: AgentName,
  inputAgent: AgentName | undefined,
  configPath: string,
  path: string,
): string | null {
  const program = WORKFLOW_INSTALLS[configAgent]
  if (inputAgent !== undefined || program === undefined || onPath(program, path)) return null
  return `agent: ${configAgent} in ${configPath}, but the workflow's 'agent' input is empty and '${program}' is not on PATH: set the reusable workflow's input agent: ${configAgent} so that it installs the CLI (or install it in a step before the loop).`
}

function onPath(program: string, path: string): boolean {
  return path
    .split(delimiter)
    .filter((dir) => dir !== '')
    .some((dir) => {
      try {
        accessSync(join(dir, program), constants.X_OK)
        return true
      } catch {
        return false
      }
    })
}
