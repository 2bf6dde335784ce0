/**
 * The action's inputs, parsed once into one typed settings object before any side effect, so a bad
 * value fails the job before it touches anything. Every bad value is named with the input, the value
 * and what is expected.
 * Reads nothing from the environment itself: the caller passes `getInput` (and the event), so the
 * parser is testable without `process.env`.
 */
import { resolve } from 'node:path'
import { z } from 'zod'
import { InputDefaults, Inputs } from '../constants.js'
import { AGENT_NAMES, type AgentName, agentNameKey } from '../domain/agents/types.js'
import { type CapSettingNames, capNeedsReason } from '../domain/caps.js'
import { ISOLATION_MODES, type IsolationMode } from '../domain/isolation.js'
import { isStateBranchName, STATE_BRANCH_RULE } from '../domain/loop-names.js'
import { STOPPED_STATES, type StoppedState } from '../domain/report/view.js'
import { MAX_LOOPS_LIMIT } from '../domain/slots.js'
import { ConfigError } from './errors.js'
import { budgetMinutesInFanOutProblem, storeInFanOutProblem } from './fan-out-inputs.js'
import { parseSecretLines, parseVerifyLines } from './input-lines.js'
import { budgetBeyondJobTimeoutProblem, MAX_BUDGET_MINUTES } from './job-time-inputs.js'
import type { LoopConfigRequest, SimpleModeOptions } from './load-config.js'
import { deriveLoopId, LOOP_ID_MAX_LENGTH, sanitiseLoopId } from './loop-id.js'
import { isDefaultConfigInput, simpleModeInputsProblem } from './simple-mode-inputs.js'

export { deriveLoopId, LOOP_ID_MAX_LENGTH, parseSecretLines, parseVerifyLines, sanitiseLoopId }

export const STORE_KINDS = ['auto', 'cache', 'artifact', 'git'] as const
export type StoreKind = (typeof STORE_KINDS)[number]

export const ACTION_COMMANDS = [
  'run',
  'resume',
  'approve',
  'abort',
  'skip',
  'sweep',
  'plan',
  'verify',
  'decide',
] as const
export type ActionCommand = (typeof ACTION_COMMANDS)[number]
/** A person's command fan-out's decide applies (`person-command`); `run`: none. */
export const PERSON_COMMANDS = ['run', 'resume', 'approve', 'abort', 'skip'] as const

/** What GitHub gives as `needs.<job>.result`: decide's `verify-result`. */
const JOB_RESULTS = ['success', 'failure', 'cancelled', 'skipped'] as const

export const MAX_ITERATIONS_LIMIT = 1000
/** How the action's inputs name the cap and its reason, in the message when a high cap lacks a reason. */
const INPUT_CAP_NAMES: CapSettingNames = { cap: "Input 'max-iterations'", reason: "'cap-reason'" }

/** What the parser needs to know about the triggering event to derive a default loop id. */
export interface EventContext {
  eventName: string
  payload: Record<string, unknown>
  runId: number
}

/** The action's settings, typed and validated. Optional inputs left empty are `undefined`. */
export interface ActionSettings {
  /** The work command for simple mode (a trusted shell line from the workflow file). */
  work: string | undefined
  /** The agent preset, over the config's `agent` (and simple mode's work command when it is not `command`). */
  agent: AgentName | undefined
  /** Verify commands for simple mode, one per non-empty line. */
  verify: string[]
  /** The loop's goal, over the config's (a trusted line from the workflow file). */
  goal: string | undefined
  /** Path of the loop config, relative to `workingDirectory`. */
  config: string
  /**
   * True when `config` names the default file (empty, or the default GitHub fills in): simple mode wins
   * over it, and a missing default file is fine in simple mode.
   */
  configIsDefault: boolean
  loopId: string
  /** Where `loopId` came from, for the log. */
  loopIdSource: 'input' | 'issue' | 'pull-request' | 'run'
  maxIterations: number | undefined
  capReason: string | undefined
  store: StoreKind
  stateBranch: string
  githubToken: string
  /** The token used for `git push`; the `github-token` when `push-token` is empty. */
  pushToken: string
  /** The iteration a re-dispatch asks for; `undefined` on a fresh start. */
  iteration: number | undefined
  command: ActionCommand
  gate: string | undefined
  task: string | undefined
  reason: string | undefined
  dispatch: boolean
  budgetMinutes: number | undefined
  allowUntrusted: boolean
  /** How the project's commands are kept from the controller's processes (see `domain/isolation.ts`). */
  isolation: IsolationMode
  /** The end states that fail the job (its run shows red); the others conclude success. */
  failOn: readonly StoppedState[]
  /** Secret environment variables handed to commands (and redacted from everything posted). */
  secrets: Record<string, string>
  /** Names listed in `secrets` that had no value in the environment. */
  missingSecrets: string[]
  workingDirectory: string
  /** `command: sweep`: how long a dispatched iteration may go unclaimed before it is dispatched again. */
  staleAfterMinutes: number
  /** Keep the `Loop dashboard` issue: every loop listed, with boxes people tick to act (needs the `git` store). */
  dashboard: boolean
  /** How many loops of the repository may run at once (`max-loops`); null: no limit. */
  maxLoops: number | null
  /** Fan-out (`command: plan | verify | decide`): the folder the jobs' hand-off files are in; undefined: RUNNER_TEMP's. */
  handOff: string | undefined
  /** `command: verify`: the matrix leg this job runs. */
  leg: string | undefined
  /** `command: decide`: the verify job's result (`needs.verify.result`), named for a leg without a verdict. */
  verifyResult: string
  /** `command: decide`: the person's command the reusable workflow was called with (`run`: none). */
  personCommand: (typeof PERSON_COMMANDS)[number]
  /** The job's `timeout-minutes`, when the workflow passes it: `budget-minutes` must leave room in it. */
  jobTimeoutMinutes: number | undefined
}

/** A user's mistake in the workflow file: said plainly, never an internal fault. */
export class ActionInputError extends ConfigError {
  override name = 'ActionInputError'
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'))
  }
}

type GetInput = (name: string) => string

const MAX_QUOTED = 120

function quote(value: string): string {
  const shown = value.length > MAX_QUOTED ? `${value.slice(0, MAX_QUOTED)}…` : value
  return `'${shown.replace(/\r?\n/g, '\\n')}'`
}

/** Each input: the zod schema that turns its raw string into the typed value, and what it expects. */
interface Field<T> {
  schema: z.ZodType<T, string>
  expected: string
  /** Secrets are never quoted back in a message. */
  secret?: boolean
}

const wholeNumber = (min: number, max: number) =>
  z.string().regex(/^\d+$/).transform(Number).pipe(z.number().int().min(min).max(max))

const trueValues = ['true', 'True', 'TRUE']
const falseValues = ['false', 'False', 'FALSE']
const booleanString = z.enum([...trueValues, ...falseValues]).transform((value) => trueValues.includes(value))

const gateName = /^[a-z0-9][a-z0-9-]*$/
const taskName = /^[A-Za-z0-9][A-Za-z0-9._:/-]*$/

const fields = {
  maxIterations: {
    schema: wholeNumber(1, MAX_ITERATIONS_LIMIT),
    expected: `a whole number from 1 to ${MAX_ITERATIONS_LIMIT}`,
  },
  staleAfterMinutes: {
    schema: wholeNumber(1, 60 * 24 * 7),
    expected: 'a whole number of minutes from 1 to 10080 (a week)',
  },
  maxLoops: {
    schema: wholeNumber(0, MAX_LOOPS_LIMIT),
    expected: `a whole number from 1 to ${MAX_LOOPS_LIMIT} (empty or 0: no limit)`,
  },
  iteration: { schema: wholeNumber(0, 1_000_000), expected: 'a whole number (the iteration a re-dispatch runs)' },
  budgetMinutes: {
    schema: z
      .string()
      .regex(/^\d+(\.\d+)?$/)
      .transform(Number)
      .pipe(z.number().min(0).lt(MAX_BUDGET_MINUTES))
      // 0 is what the input's description offers for one iteration per job, as empty is.
      .transform((minutes) => (minutes === 0 ? undefined : minutes)),
    expected: `a number of minutes below ${MAX_BUDGET_MINUTES} (GitHub ends a job on its runners after 6 hours; empty or 0: one iteration per job)`,
  },
  // Up to the 5 days a job may run on a self-hosted runner.
  jobTimeoutMinutes: {
    schema: wholeNumber(1, 60 * 24 * 5),
    expected: "a whole number of minutes from 1 to 7200 (the job's timeout-minutes)",
  },
  store: { schema: z.enum(STORE_KINDS), expected: `one of ${STORE_KINDS.join(', ')}` },
  command: { schema: z.enum(ACTION_COMMANDS), expected: `one of ${ACTION_COMMANDS.join(', ')}` },
  // The reusable workflow passes its own `command` here in fan-out: named, so the message leads to it.
  personCommand: {
    schema: z.enum(PERSON_COMMANDS),
    expected: `one of ${PERSON_COMMANDS.join(', ')} (the reusable workflow's 'command', which decide applies)`,
  },
  verifyResult: { schema: z.enum(JOB_RESULTS), expected: `a job's result: ${JOB_RESULTS.join(', ')}` },
  agent: {
    schema: z.string().transform(agentNameKey).pipe(z.enum(AGENT_NAMES)),
    expected: `one of ${AGENT_NAMES.join(', ')} (in any case)`,
  },
  isolation: { schema: z.enum(ISOLATION_MODES), expected: `one of ${ISOLATION_MODES.join(', ')}` },
  boolean: { schema: booleanString, expected: 'true or false' },
  failOn: {
    schema: z
      .string()
      .transform((value) => value.split(',').map((part) => part.trim().toLowerCase()))
      .pipe(z.union([z.tuple([z.literal('none')]), z.array(z.enum(STOPPED_STATES)).min(1)]))
      .transform((states): StoppedState[] => (states[0] === 'none' ? [] : [...new Set(states as StoppedState[])])),
    expected: `a comma-separated list of ${STOPPED_STATES.join(', ')}, or none`,
  },
  gate: { schema: z.string().regex(gateName), expected: 'a gate name (lower-case letters, digits and dashes)' },
  task: {
    schema: z.string().regex(taskName).max(200),
    expected: 'a task name (letters, digits, dot, dash, underscore, colon, slash)',
  },
  stateBranch: {
    schema: z.string().refine(isStateBranchName),
    expected: `a branch name (${STATE_BRANCH_RULE})`,
  },
  path: {
    schema: z
      .string()
      .min(1)
      .refine((value) => !value.includes('\0')),
    expected: 'a path',
  },
  token: { schema: z.string().min(1), expected: 'a non-empty token', secret: true },
} satisfies Record<string, Field<unknown>>

/**
 * Parses every input at once and reports every problem at once.
 *
 * @param getInput returns the raw input value ('' when unset), like `core.getInput`.
 * @param event the triggering event, for the default loop id.
 * @param env the environment, for `secrets` lines that name a variable without a value.
 * @throws ActionInputError listing every bad input.
 */
export function parseActionInputs(
  getInput: GetInput,
  event: EventContext,
  env: Readonly<Record<string, string | undefined>> = {},
): ActionSettings {
  const problems: string[] = []
  const raw = (name: string): string => getInput(name).trim()

  function parse<T>(name: string, field: Field<T>, fallback: T): T
  function parse<T>(name: string, field: Field<T>): T | undefined
  function parse<T>(name: string, field: Field<T>, fallback?: T): T | undefined {
    const value = raw(name)
    if (value === '') return fallback
    const result = field.schema.safeParse(value)
    if (result.success) return result.data
    problems.push(
      `Input '${name}' must be ${field.expected}; got ${field.secret ? 'a value that is not' : quote(value)}.`,
    )
    return fallback
  }

  const work = raw(Inputs.Work) || undefined
  const agent = parse(Inputs.Agent, fields.agent)
  const verify = parseVerifyLines(getInput(Inputs.Verify))
  const goal = raw(Inputs.Goal) || undefined
  const config = parse(Inputs.Config, fields.path, InputDefaults.config)
  const configIsDefault = isDefaultConfigInput(raw(Inputs.Config))
  const presetAgent = agent !== undefined && agent !== 'command'
  const simpleProblem = simpleModeInputsProblem({ work, verify, presetAgent, config, configIsDefault })
  if (simpleProblem) problems.push(simpleProblem)
  const maxIterations = parse(Inputs.MaxIterations, fields.maxIterations)
  const capReason = raw(Inputs.CapReason) || undefined
  const capProblem = maxIterations === undefined ? undefined : capNeedsReason(maxIterations, capReason, INPUT_CAP_NAMES)
  if (capProblem) problems.push(capProblem)
  const store = parse(Inputs.Store, fields.store, InputDefaults.store)
  const stateBranch = parse(Inputs.StateBranch, fields.stateBranch, InputDefaults.stateBranch)
  const githubToken = parse(Inputs.GitHubToken, fields.token, '')
  if (githubToken === '' && raw(Inputs.GitHubToken) === '') {
    problems.push(`Input 'github-token' must be a token; got ''. The default is \${{ github.token }}.`)
  }
  const pushToken = raw(Inputs.PushToken) || githubToken
  const iteration = parse(Inputs.Iteration, fields.iteration)
  const command = parse(Inputs.Command, fields.command, InputDefaults.command)
  const gate = parse(Inputs.Gate, fields.gate)
  const task = parse(Inputs.Task, fields.task)
  const reason = raw(Inputs.Reason) || undefined
  if (command === 'approve' && gate === undefined && raw(Inputs.Gate) === '') {
    problems.push(`Input 'gate' is required when 'command' is 'approve'; name the gate to approve, e.g. 'security'.`)
  }
  if (command === 'skip') {
    if (task === undefined && raw(Inputs.Task) === '')
      problems.push(`Input 'task' is required when 'command' is 'skip'.`)
    if (!reason)
      problems.push(`Input 'reason' is required when 'command' is 'skip'; a skipped task needs a recorded reason.`)
  }
  const dispatch = parse(Inputs.Dispatch, fields.boolean, InputDefaults.dispatch)
  const budgetMinutes = parse(Inputs.BudgetMinutes, fields.budgetMinutes)
  const fanOutBudget = budgetMinutesInFanOutProblem(command, budgetMinutes)
  if (fanOutBudget) problems.push(fanOutBudget)
  const fanOutStore = storeInFanOutProblem(command, store)
  if (fanOutStore) problems.push(fanOutStore)
  const jobTimeoutMinutes = parse(Inputs.JobTimeoutMinutes, fields.jobTimeoutMinutes)
  const beyondTimeout = budgetBeyondJobTimeoutProblem(budgetMinutes, jobTimeoutMinutes)
  if (beyondTimeout) problems.push(beyondTimeout)
  const allowUntrusted = parse(Inputs.AllowUntrusted, fields.boolean, InputDefaults.allowUntrusted)
  const isolation = parse(Inputs.Isolation, fields.isolation, InputDefaults.isolation)
  const failOn = parse(Inputs.FailOn, fields.failOn, [...STOPPED_STATES])
  const workingDirectory = parse(Inputs.WorkingDirectory, fields.path, InputDefaults.workingDirectory)
  const staleAfterMinutes = parse(Inputs.StaleAfterMinutes, fields.staleAfterMinutes, InputDefaults.staleAfterMinutes)
  if (command === 'sweep' && store !== 'git') {
    problems.push(
      `Input 'store' must be 'git' when 'command' is 'sweep' (only the git store lists every loop); got ${quote(store)}.`,
    )
  }

  const dashboard = parse(Inputs.Dashboard, fields.boolean, InputDefaults.dashboard)
  if (dashboard && store !== 'git') {
    problems.push(
      `Input 'dashboard' needs 'store: git' (only the git store lists every loop); got 'dashboard: true' with store ${quote(store)}.`,
    )
  }
  const maxLoops = parse(Inputs.MaxLoops, fields.maxLoops, 0) || null
  if (maxLoops !== null && store !== 'git') {
    problems.push(
      `Input 'max-loops' needs 'store: git' (the queue of loops lives on the git store's branch, changed under compare-and-swap); got 'store: ${store}' with 'max-loops: ${maxLoops}'. Use the default store, 'git', or leave 'max-loops' empty.`,
    )
  }

  const handOff = parse(Inputs.HandOff, fields.path)
  const leg = raw(Inputs.Leg) || undefined
  if (command === 'verify' && !leg)
    problems.push(`Input 'leg' is required when 'command' is 'verify' (\${{ matrix.leg }}).`)
  const verifyResult = parse(Inputs.VerifyResult, fields.verifyResult, '')
  const personCommand = parse(Inputs.PersonCommand, fields.personCommand, 'run')
  if (personCommand !== 'run') {
    if (command !== 'decide') {
      problems.push(
        `Input 'person-command' is for 'command: decide' (fan-out); got 'person-command: ${personCommand}' with 'command: ${command}'. Give the command as 'command' instead.`,
      )
    }
    if (personCommand === 'approve' && !raw(Inputs.Gate))
      problems.push(`Input 'gate' is required when 'person-command' is 'approve'; name the gate to approve.`)
    if (personCommand === 'skip' && (!raw(Inputs.Task) || !reason))
      problems.push(`Inputs 'task' and 'reason' are required when 'person-command' is 'skip'.`)
  }
  const secretsResult = parseSecretLines(getInput(Inputs.Secrets), env)
  problems.push(...secretsResult.problems)

  let loopId = ''
  let loopIdSource: ActionSettings['loopIdSource'] = 'input'
  const loopIdInput = raw(Inputs.LoopId)
  if (loopIdInput !== '') {
    loopId = sanitiseLoopId(loopIdInput)
    if (loopId === '') {
      problems.push(
        `Input 'loop-id' must contain letters or digits (it is used in branch names and paths); got ${quote(loopIdInput)}.`,
      )
    }
  } else {
    const derived = deriveLoopId(event)
    loopId = derived.loopId
    loopIdSource = derived.source
  }

  if (problems.length > 0) throw new ActionInputError(problems)
  return {
    work,
    agent,
    verify,
    goal,
    config,
    configIsDefault,
    loopId,
    loopIdSource,
    maxIterations,
    capReason,
    store,
    stateBranch,
    githubToken,
    pushToken,
    iteration,
    command,
    gate,
    task,
    reason,
    dispatch,
    budgetMinutes,
    allowUntrusted,
    isolation,
    failOn,
    secrets: secretsResult.secrets,
    missingSecrets: secretsResult.missing,
    workingDirectory,
    staleAfterMinutes,
    dashboard,
    maxLoops,
    handOff,
    leg,
    verifyResult,
    personCommand,
    jobTimeoutMinutes,
  }
}

/**
 * The options for `simpleModeConfig` (in `load-config.ts`) when `work` and `verify` describe simple
 * mode, or null when they do not. The action's `budget-minutes` and `secrets` are applied by the caller.
 */
export function simpleModeOptions(settings: ActionSettings): SimpleModeOptions | null {
  const presetAgent = settings.agent !== undefined && settings.agent !== 'command'
  if ((settings.work === undefined && !presetAgent) || settings.verify.length === 0) return null
  return {
    ...(settings.work !== undefined ? { work: settings.work } : {}),
    ...(settings.agent !== undefined ? { agent: settings.agent } : {}),
    verify: settings.verify,
    ...(settings.maxIterations !== undefined ? { maxIterations: settings.maxIterations } : {}),
    ...(settings.capReason !== undefined ? { capReason: settings.capReason } : {}),
  }
}

/**
 * What `loadLoopConfig` loads for the action: the `config` file under `root`, or simple mode when
 * `work` and `verify` are given (the parser refuses them with a named `config`); the cap inputs over the file's.
 */
export function actionConfigRequest(settings: ActionSettings, root: string): LoopConfigRequest {
  return {
    file: { path: resolve(root, settings.config), name: settings.config },
    fileNamed: !settings.configIsDefault,
    simple: simpleModeOptions(settings),
    cap: { maxIterations: settings.maxIterations, capReason: settings.capReason, names: INPUT_CAP_NAMES },
    ...(settings.agent !== undefined ? { agent: { name: settings.agent, setting: `input '${Inputs.Agent}'` } } : {}),
    ...(settings.goal !== undefined ? { goal: settings.goal } : {}),
    missing: `No loop config at '${settings.config}'. Add one (see 'loop-controller init'), or use simple mode with the 'work' and 'verify' inputs.`,
  }
}

/** Values that must be redacted from everything the action posts. */
export function secretValues(settings: ActionSettings): string[] {
  return [settings.githubToken, settings.pushToken, ...Object.values(settings.secrets)].filter((value) => value !== '')
}
