/**
 * The loop's config for the action: the config file from the trusted ref that was checked out, or
 * simple mode from the `work` and `verify` inputs, with the inputs' caps applied over either.
 */
import { relative } from 'node:path'
import { type ActionSettings, actionConfigRequest } from '../config/action-inputs.js'
import { loadLoopConfig } from '../config/load-config.js'
import type { LoopConfig } from '../domain/loop-config.js'
import type { Workspace } from '../ports/workspace.js'

export async function loadActionConfig(
  settings: ActionSettings,
  root: string,
  workspace: Pick<Workspace, 'readText'>,
): Promise<{ config: LoopConfig; configPathRelative: string | null }> {
  // A bad config, cap or pipeline is the user's to fix, before anything runs.
  const loaded = await loadLoopConfig(actionConfigRequest(settings, root), (path) => workspace.readText(path))
  return { config: loaded.config, configPathRelative: loaded.configPath && relative(root, loaded.configPath) }
}

/** The config the iterations run with: the `secrets` inputs reach the loop's commands too. */
export function withSecretsPassed(config: LoopConfig, secrets: Record<string, string>): LoopConfig {
  return {
    ...config,
    work: { ...config.work, 'pass-env': [...new Set([...config.work['pass-env'], ...Object.keys(secrets)])] },
  }
}
