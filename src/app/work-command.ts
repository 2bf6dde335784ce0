/**
 * The work command contract (README, "Work command contract"): the prompt and context files, the
 * environment, `LOOP_OUTPUT_FILE` read back, exit 3 or a `BLOCKED:` line as a call for a person.
 */
import { join } from 'node:path'
import { AGENT_PRESETS } from '../domain/agents/index.js'
import { parseDeadLetterRecord } from '../domain/analysis/index.js'
import type { IterationOutcome } from '../domain/engine/index.js'
import type { Strategy } from '../domain/stages.js'
import type { LoopState } from '../domain/state.js'
import { buildWorkContext, type FailureForAgent, renderPrompt } from '../domain/work-context.js'
import type { Logger } from '../ports/logger.js'
import { agentRequest, callAgent } from './agent-call.js'
import { gatherCodeContext } from './code-context.js'
import type { IterationDeps, IterationInput } from './iteration/types.js'
import { usage } from './step-support.js'

/** Runs the work command under the work command contract (README, "Work command contract"). */
export async function runWork(
  input: IterationInput,
  deps: IterationDeps,
  state: LoopState,
  stage: LoopState['stage'],
  capability: string | null,
  strategy: Strategy | null,
  failures: FailureForAgent[],
  iterationDir: string,
  env: Record<string, string>,
): Promise<{ work: NonNullable<IterationOutcome['work']>; notes: string[] }> {
  const selection = await gatherCodeContext(input.cwd, deps, state, strategy, failures, input.excludeFromCommits)
  const deadLetters = ((await deps.audit.readDeadLetters?.()) ?? []).flatMap((json) => {
    const record = parseDeadLetterRecord(json)
    return record ? [record] : []
  })
  const context = buildWorkContext({
    deadLetters,
    state,
    stage,
    capability,
    strategy,
    failures,
    codeContext: [],
    ...(selection ? { selection } : {}),
  })
  const promptFile = join(iterationDir, 'prompt.md')
  const contextFile = join(iterationDir, 'context.json')
  const outputFile = join(iterationDir, 'work-output.json')
  await deps.workspace.writeText(promptFile, renderPrompt(context))
  await deps.workspace.writeText(contextFile, `${JSON.stringify(context, null, 2)}\n`)
  await deps.workspace.remove(outputFile)
  deps.progress?.phase?.(state.iteration, stage, 'work')
  const { request, note } = agentRequest(
    input.config,
    state,
    {
      cwd: input.cwd,
      env: {
        ...env,
        ...input.config.work.env,
        LOOP_ID: state.loopId,
        LOOP_PROMPT_FILE: promptFile,
        LOOP_CONTEXT_FILE: contextFile,
        LOOP_OUTPUT_FILE: outputFile,
        LOOP_ITERATION: String(state.iteration),
        LOOP_MAX_ITERATIONS: String(state.maxIterations),
        LOOP_STAGE: stage,
        LOOP_CAPABILITY: capability ?? '',
        LOOP_STRATEGY: strategy ?? '',
        LOOP_SESSION: state.session ?? '',
      },
      timeoutMs: input.config.work.timeout * 1000,
      logFile: join(iterationDir, 'work.log'),
    },
    promptFile,
    input.agentSandbox ?? true,
  )
  const called = await callAgent(input.config, state, request, deps)
  if (note) called.notes.unshift(note)
  const { result } = called
  const blockedLine = /^BLOCKED:\s*(.*)$/m.exec(result.output)
  const blocked = result.exitCode === 3 || blockedLine !== null
  // The command contract's own report; a preset's usage comes from its CLI's output instead.
  const reported =
    input.config.agent === 'command'
      ? parseWorkOutput(await deps.workspace.readText(outputFile, 64 * 1024), deps.logger)
      : called
  usage(state, state.iteration, 'work', strategy ?? stage, result)
  return {
    work: {
      exitCode: result.exitCode,
      blocked,
      ...(blocked
        ? {
            blockedReason: deps.redact(
              blockedLine?.[1]?.trim() || `the work command exited ${result.exitCode} and asks for a human`,
            ),
          }
        : {}),
      durationMs: result.durationMs,
      ...(reported.tokens !== undefined ? { tokens: reported.tokens } : {}),
      ...(reported.costUsd !== undefined ? { costUsd: reported.costUsd } : {}),
      ...(reported.session !== undefined ? { session: reported.session } : {}),
      ...(called.sessionUsage ? { sessionUsage: called.sessionUsage } : {}),
      ...(called.failure ? { failure: { ...called.failure, message: deps.redact(called.failure.message) } } : {}),
      agent: input.config.agent === 'command' ? 'the work command' : AGENT_PRESETS[input.config.agent].title,
    },
    notes: called.notes.map(deps.redact),
  }
}

/** `LOOP_OUTPUT_FILE`: `{"usage": {"tokens": 1234, "costUsd": 0.12}, "session": "..."}`; anything else is ignored with a warning. */
export function parseWorkOutput(
  text: string | null,
  logger?: Logger,
): { tokens?: number; costUsd?: number; session?: string } {
  if (!text?.trim()) return {}
  try {
    const data = JSON.parse(text) as { usage?: { tokens?: unknown; costUsd?: unknown }; session?: unknown }
    const tokens = data.usage?.tokens
    const cost = data.usage?.costUsd
    return {
      ...(typeof tokens === 'number' && Number.isFinite(tokens) && tokens >= 0 ? { tokens } : {}),
      ...(typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? { costUsd: cost } : {}),
      ...(typeof data.session === 'string' && data.session.length <= 2000 ? { session: data.session } : {}),
    }
  } catch {
    logger?.warning('LOOP_OUTPUT_FILE is not valid JSON; its usage and session are ignored.')
    return {}
  }
}
