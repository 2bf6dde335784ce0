/**
 * The loop's config for the action: the config file from the trusted ref that was checked out, or
 * simple mode from the `work` and `verify` inputs, with the inputs' caps applied over either.
 */
import { relative } from 'node:path'
import { type ActionSettings, actionConfigRequest, secretValues } from '../config/action-inputs.js'
import { loadLoopConfig } from '../config/load-config.js'
import { shadowedConfigNotice } from '../config/simple-mode-inputs.js'
import { AGENT_SECRET_NAMES } from '../domain/agents/index.js'
import type { LoopConfig } from '../domain/loop-config.js'
import type { Policy } from '../domain/policy.js'
import { secretValuesInEnv } from '../domain/secret-names.js'
import type { Logger } from '../ports/logger.js'
import type { Workspace } from '../ports/workspace.js'
import type { ActionIO } from './actions-io.js'

/**
 * The loop config for this job. When simple mode's inputs passed over a default config file that
 * exists, the log (a warning) and the job summary say so: its checks are not the ones that run.
 */
export async function loadActionConfig(
  settings: ActionSettings,
  root: string,
  workspace: Pick<Workspace, 'readText'>,
  say: { logger: Pick<Logger, 'warning'>; io: Pick<ActionIO, 'writeSummary'>; hasStepSummary: boolean },
): Promise<{ config: LoopConfig; policy: Policy; configPathRelative: string | null; capGiven: number | undefined }> {
  // A bad config, cap or pipeline is the user's to fix, before anything runs.
  const loaded = await loadLoopConfig(actionConfigRequest(settings, root), (path) => workspace.readText(path))
  if (loaded.shadowedFile !== null) {
    const inputs = settings.work !== undefined ? "the 'work' and 'verify' inputs" : "the 'verify' input"
    const notice = shadowedConfigNotice(loaded.shadowedFile, inputs)
    say.logger.warning(notice)
    if (say.hasStepSummary)
      await say.io.writeSummary(`> [!WARNING]
> ${notice}

`)
  }
  return {
    config: loaded.config,
    policy: loaded.policy,
    configPathRelative: loaded.configPath && relative(root, loaded.configPath),
    capGiven: loaded.capGiven,
  }
}

/**
 * The config the iterations run with: the `secrets` inputs reach the loop's commands too, except an
 * agent's own key (`ANTHROPIC_API_KEY`, ...), which reaches the work command alone: the checks, fixes
 * and install run code the agent may have written.
 */
export function withSecretsPassed(config: LoopConfig, secrets: Record<string, string>): LoopConfig {
  const names = Object.keys(secrets)
  const agentKeys = names.filter((name) => AGENT_SECRET_NAMES.includes(name.toUpperCase()))
  const shared = names.filter((name) => !agentKeys.includes(name))
  return {
    ...config,
    work: {
      ...config.work,
      'pass-env': [...new Set([...config.work['pass-env'], ...shared])],
      secrets: [...new Set([...config.work.secrets, ...agentKeys])],
    },
  }
}

/**
 * Every value the action masks: its tokens and `secrets` inputs, and each secret-named variable of the
 * step's environment (an agent's key handed over in `env:`, which the inputs never see). The inputs'
 * own variables (`INPUT_*`) are left to `secretValues`, which knows which of them are secret.
 */
export function actionSecretValues(
  settings: ActionSettings,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const stepEnv = Object.fromEntries(Object.entries(env).filter(([name]) => !/^INPUT_/i.test(name)))
  return [...new Set([...secretValues(settings), ...secretValuesInEnv(stepEnv)])]
}
