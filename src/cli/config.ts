/** The CLI's side of loading the loop config: its flags made into a request for the one loader. */
import { join, relative, resolve } from 'node:path'
import { nodeWorkspace } from '../adapters/node-workspace.js'
import { type LoadedConfig, loadLoopConfig } from '../config/load-config.js'
import { AGENT_NAMES, type AgentName, agentNameKey } from '../domain/agents/types.js'
import type { CapSettingNames } from '../domain/caps.js'
import type { Policy } from '../domain/policy.js'
import { UsageError } from './exit-codes.js'
import type { CliIo } from './io.js'
import { parseCap, type Values } from './options.js'

/** How the CLI names the cap and its reason, in the message when a high cap lacks a reason. */
export const FLAG_CAP_NAMES: CapSettingNames = { cap: '--max-iterations', reason: '--cap-reason' }

/** The loop config from `--config FILE` (default `.github/loop.yml`) or simple mode's `--work`/`--verify`. */
export async function loadCliConfig(root: string, values: Values, io: CliIo): Promise<LoadedConfig> {
  const maxIterations = values['max-iterations'] !== undefined ? parseCap(values['max-iterations']) : undefined
  const agent = values.agent === undefined ? undefined : parseAgent(values.agent)
  const presetAgent = agent !== undefined && agent !== 'command'
  const simple = values.work !== undefined || values.verify !== undefined
  if (simple) {
    if (values.config) throw new UsageError('Use either --config or --work/--verify (simple mode), not both.')
    if (!values.work?.trim() && !presetAgent)
      throw new UsageError('Simple mode needs --work CMD (the work command) or --agent NAME; got neither.')
    if (!values.verify?.length) throw new UsageError('Simple mode needs at least one --verify CMD; got none.')
  }
  const path = resolve(io.cwd, values.config ?? join(root, '.github', 'loop.yml'))
  const name = relative(io.cwd, path) || path
  return loadLoopConfig(
    {
      file: { path, name },
      fileNamed: values.config !== undefined,
      simple: simple
        ? {
            ...(values.work !== undefined ? { work: values.work } : {}),
            ...(agent !== undefined ? { agent } : {}),
            verify: values.verify ?? [],
          }
        : null,
      cap: { maxIterations, capReason: values['cap-reason'], names: FLAG_CAP_NAMES },
      ...(agent !== undefined ? { agent: { name: agent, setting: '--agent' } } : {}),
      missing: `No loop config at ${name}. Write one with 'loop-controller init', name another with --config FILE, or use simple mode: --work CMD --verify CMD.`,
    },
    (file) => nodeWorkspace.readText(file),
  )
}

function parseAgent(value: string): AgentName {
  const known: readonly string[] = AGENT_NAMES
  const name = agentNameKey(value)
  if (known.includes(name)) return name as AgentName
  throw new UsageError(`--agent: expected one of ${AGENT_NAMES.join(', ')} (in any case); got '${value}'.`)
}

/** The loop's policy when its config (file or simple-mode flags) is at hand and valid; else null. */
export async function policyIfConfigured(root: string, values: Values, io: CliIo): Promise<Policy | null> {
  try {
    return (await loadCliConfig(root, values, io)).policy
  } catch {
    return null
  }
}
