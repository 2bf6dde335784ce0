/**
 * The loop's config for the action: the config file from the trusted ref that was checked out, or
 * simple mode from the `work` and `verify` inputs, with the inputs' caps applied over either.
 */
import { relative, resolve } from 'node:path'
import { type ActionSettings, simpleModeOptions } from '../config/action-inputs.js'
import { ConfigError } from '../config/errors.js'
import { parseLoopConfig, simpleModeConfig } from '../config/load-config.js'
import type { LoopConfig } from '../config/loop-config.js'
import { policyFromConfig } from '../domain/policy.js'
import type { Workspace } from '../ports/workspace.js'

export async function loadActionConfig(
  settings: ActionSettings,
  root: string,
  workspace: Pick<Workspace, 'readText'>,
): Promise<{ config: LoopConfig; configPathRelative: string | null }> {
  const simple = simpleModeOptions(settings)
  const configPath = resolve(root, settings.config)
  const text = await workspace.readText(configPath)
  let config: LoopConfig
  let configPathRelative: string | null = null
  if (text !== null && !(simple && settings.configIsDefault)) {
    config = parseLoopConfig(text, settings.config)
    configPathRelative = relative(root, configPath)
  } else if (simple) {
    config = simpleModeConfig(simple)
  } else {
    throw new ConfigError(
      `No loop config at '${settings.config}'. Add one (see 'loop-controller init'), or use simple mode with the 'work' and 'verify' inputs.`,
    )
  }
  config = {
    ...config,
    ...(settings.maxIterations !== undefined ? { 'max-iterations': settings.maxIterations } : {}),
    ...(settings.capReason !== undefined ? { 'cap-reason': settings.capReason } : {}),
  }
  // A bad cap or pipeline is the user's to fix, before anything runs.
  policyFromConfig(config)
  return { config, configPathRelative }
}

/** The config the iterations run with: the `secrets` inputs reach the loop's commands too. */
export function withSecretsPassed(config: LoopConfig, secrets: Record<string, string>): LoopConfig {
  return {
    ...config,
    work: { ...config.work, 'pass-env': [...new Set([...config.work['pass-env'], ...Object.keys(secrets)])] },
  }
}
