/**
 * What this run is, read once at the edge: the triggering event, the runner's variables and the
 * action's inputs, in one typed object. Nothing else in the action reads `process.env` or
 * `@actions/github`'s `context`; the other modules take a `RunContext`, so tests hand them a plain one.
 */
import { context } from '@actions/github'
import { type ActionSettings, parseActionInputs } from '../config/action-inputs.js'
import { ConfigError } from '../config/errors.js'
import { subjectOf } from '../domain/action-event.js'

type Env = Readonly<Record<string, string | undefined>>

export interface RunContext {
  /** The action's inputs, parsed and validated. */
  settings: ActionSettings
  event: {
    name: string
    payload: Record<string, unknown>
    /** The issue or pull request the event is about, with its labels. */
    subject: ReturnType<typeof subjectOf>
    /** The repository's default branch, the base of the loop's pull request. */
    defaultBranch: string
    /** An issue (not a pull request) the event is about, which the loop's pull request closes. */
    issueToClose: number | null
  }
  /** The whole environment: handed on to the loop's commands and to the stores' clients. */
  env: Env
  /** `owner/repo`; see `requireRepository`. */
  repository: string | undefined
  /** The workflow run's id and attempt, as the runner gives them. */
  runId: string | undefined
  runAttempt: string | undefined
  /** The web root for links, e.g. `https://github.com`. */
  serverUrl: string
  /** The REST API root, e.g. `https://api.github.com`. */
  apiUrl: string
  /** The folder the job checked out into (`GITHUB_WORKSPACE`, or the current directory off a runner). */
  workspace: string
  /** The runner's scratch folder (`RUNNER_TEMP`), when on a runner. */
  runnerTemp: string | undefined
  /** Who started the run (`GITHUB_ACTOR`). */
  actor: string | undefined
  /** `owner/repo/.github/workflows/<file>@<ref>`, which a re-dispatch targets. */
  workflowRef: string | undefined
  /** Whether a job summary can be written (`GITHUB_STEP_SUMMARY` is set). */
  hasStepSummary: boolean
}

/** The event as `@actions/github` reads it (name, payload file, numeric run id). */
export interface EventSource {
  eventName: string
  payload: Record<string, unknown>
  runId: number
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined
}

/**
 * Builds the run context from its sources. Throws `ActionInputError` naming every bad input, before
 * anything else happens.
 */
export function buildRunContext(source: {
  env: Env
  event: EventSource
  getInput: (name: string) => string
  cwd: string
}): RunContext {
  const { env, event } = source
  const settings = parseActionInputs(source.getInput, event, env)
  const payload = event.payload
  const issue = record(payload.issue)
  return {
    settings,
    event: {
      name: event.eventName,
      payload,
      subject: subjectOf(payload),
      defaultBranch: String(record(payload.repository)?.default_branch ?? 'main'),
      issueToClose: typeof issue?.number === 'number' && issue.number && !issue.pull_request ? issue.number : null,
    },
    env,
    repository: env.GITHUB_REPOSITORY,
    runId: env.GITHUB_RUN_ID,
    runAttempt: env.GITHUB_RUN_ATTEMPT,
    serverUrl: env.GITHUB_SERVER_URL || 'https://github.com',
    apiUrl: env.GITHUB_API_URL || 'https://api.github.com',
    workspace: env.GITHUB_WORKSPACE || source.cwd,
    runnerTemp: env.RUNNER_TEMP || undefined,
    actor: env.GITHUB_ACTOR,
    workflowRef: env.GITHUB_WORKFLOW_REF,
    hasStepSummary: Boolean(env.GITHUB_STEP_SUMMARY),
  }
}

/** The run context of this process: the one place the action reads `process.env` and the event. */
export function readRunContext(getInput: (name: string) => string): RunContext {
  return buildRunContext({
    env: process.env,
    event: { eventName: context.eventName, payload: context.payload as Record<string, unknown>, runId: context.runId },
    getInput,
    cwd: process.cwd(),
  })
}

function required(value: string | undefined, name: string): string {
  if (!value) throw new ConfigError(`${name} is not set; loop-controller runs inside a GitHub Actions job.`)
  return value
}

/** The repository the run belongs to; every runner sets it, so its absence means this is no job. */
export function requireRepository(run: RunContext): { fullName: string; owner: string; repo: string } {
  const fullName = required(run.repository, 'GITHUB_REPOSITORY')
  const [owner = '', repo = ''] = fullName.split('/')
  return { fullName, owner, repo }
}

/** The workflow run's numeric id, which the artifact store files its snapshots under. */
export function requireRunId(run: RunContext): number {
  return Number(required(run.runId, 'GITHUB_RUN_ID'))
}
