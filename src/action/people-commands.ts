/**
 * People's commands to the loop, from the `command` input (a dispatch or the workflow file, which need
 * write access already) or from the event (a `/loop` comment, a label, an approving review), each
 * authorized before it is applied.
 */
import type { AuditTrail } from '../adapters/audit-trail.js'
import { applyPeopleCommand, NoLoopError, type PeopleCommand } from '../app/people-commands.js'
import { ConfigError } from '../config/errors.js'
import { GITHUB_ACTIONS_BOT_LOGIN } from '../constants.js'
import { interpretEvent } from '../domain/action-event.js'
import { type Authorization, authorizeActor, type LoopCommand } from '../domain/commands.js'
import { CappedResumeError } from '../domain/engine/index.js'
import { loopBranch } from '../domain/loop-names.js'
import type { Policy } from '../domain/policy.js'
import { cappedNextStep } from '../domain/report/capped-advice.js'
import { abortedStartRefusal, cappedResumeRefusal, type Refusal, startRefusal } from '../domain/report/refusal.js'
import type { LoopState } from '../domain/state.js'
import type { Clock } from '../ports/clock.js'
import type { GitHubPort } from '../ports/github.js'
import type { Logger } from '../ports/logger.js'
import { type Store, StoreConflictError } from '../ports/store.js'
import type { RunContext } from './run-context.js'

export interface PeopleCommandDeps {
  github: Pick<GitHubPort, 'getPermission' | 'getAuthenticatedLogin'>
  store: Store
  audit: AuditTrail
  logger: Logger
  clock: Clock
  /** Brings back the loop's audit trail before a command adds to it. */
  restoreAudit: () => Promise<void>
  /** Tells people why something they asked for was refused (job summary, comment); the log has it regardless. */
  reportRefusal?: (refusal: Refusal) => Promise<void>
  /**
   * Refuses (throws), before a person's command is saved or a start or run goes on, a job that could not
   * run the loop; never asked for an abort, or for an event that leaves the loop alone.
   */
  beforeRun?: () => Promise<void>
  /**
   * A resume must ask for a slot before the loop runs (`max-loops` or `depends-on`): it is saved `queued`,
   * asking for one, and the job's `takeSlot` asks (`resumeAsksForSlot` in ./slots.ts).
   */
  resumeAsksForSlot?: boolean
  /**
   * What a resume is checked against: the cap this job was given (the `max-iterations` input), applied
   * first so it can lift the cap that capped the loop, and the config's budget.
   */
  resumeLimits?: { cap: number | undefined; budget: Policy['budget'] }
}

function toPeopleCommand(command: Exclude<LoopCommand, { kind: 'start' }>): PeopleCommand {
  return command.kind === 'abort' ? { kind: 'abort' } : command
}

/** The command the `command` input names (never `run`). */
function commandFromInputs(settings: RunContext['settings']): PeopleCommand {
  switch (settings.command) {
    case 'approve':
      return { kind: 'approve', gate: settings.gate ?? '' }
    case 'skip':
      return { kind: 'skip', task: settings.task ?? '', reason: settings.reason ?? '' }
    case 'resume':
    case 'abort':
      return { kind: settings.command }
    case 'run':
    case 'sweep':
    case 'plan':
    case 'verify':
    case 'decide':
      throw new Error(`commandFromInputs: '${settings.command}' is not a person's command`)
  }
}

/**
 * Whether `actor` may command a loop: write, maintain or admin on the repository, and not the controller
 * itself (its own comments and edits never command it). Shared by comments, labels, reviews and the
 * dashboard's ticks.
 */
export async function authorizePerson(
  github: Pick<GitHubPort, 'getPermission' | 'getAuthenticatedLogin'>,
  actor: string,
  actorType: string,
): Promise<Authorization> {
  return authorizeActor({
    permission: await github.getPermission(actor),
    actorType,
    actor,
    controllerLogin: await github.getAuthenticatedLogin(GITHUB_ACTIONS_BOT_LOGIN),
  })
}

/**
 * Applies people's commands. Returns false when the job should stop here (nothing for the loop,
 * an unauthorized actor, or an abort).
 */
export async function applyCommands(
  run: Pick<RunContext, 'settings' | 'event' | 'actor'>,
  loopId: string,
  deps: PeopleCommandDeps,
): Promise<boolean> {
  const { logger } = deps
  const apply = async (command: PeopleCommand, by: string): Promise<LoopState | null> => {
    await deps.restoreAudit()
    try {
      return await applyPeopleCommand(
        command.kind === 'resume' && deps.resumeLimits ? { ...command, ...deps.resumeLimits } : command,
        { loopId, by, ...(deps.resumeAsksForSlot ? { resumeAsksForSlot: true } : {}) },
        { store: deps.store, clock: deps.clock, audit: deps.audit },
      )
    } catch (error) {
      if (error instanceof CappedResumeError) {
        // Said where the person asked (summary, comment), and the job fails with it: nothing was applied.
        const surface = run.event.subject.number === null ? 'dispatch-only' : 'thread'
        const branch = `\`${loopBranch(loopId)}\``
        const next = cappedNextStep(error.limit, error.iterationsRun, surface, branch)
        await deps.reportRefusal?.(cappedResumeRefusal(loopId, error.message, upperFirst(next)))
        throw new ConfigError(`${error.message} Next: ${next}`)
      }
      if (error instanceof NoLoopError) {
        logger.warning(`'${command.kind}' for loop ${loopId}, which has not started: ${error.message}`)
        return null
      }
      // Retried already (applyPeopleCommand): a conflict that kept coming back is said as one, not as a fault.
      if (error instanceof StoreConflictError) {
        throw new ConfigError(
          `'${command.kind}' for loop ${loopId} was not applied: the loop's state kept changing while it was (another job saving at the same time). Nothing was lost; give the command again. (${error.message})`,
        )
      }
      throw error
    }
  }
  const beforeRun = deps.beforeRun ?? (async () => {})
  if (run.settings.command !== 'run') {
    const command = commandFromInputs(run.settings)
    if (command.kind !== 'abort') await beforeRun()
    const state = await apply(command, run.actor ?? 'workflow')
    return state !== null && command.kind !== 'abort'
  }
  const intent = interpretEvent(run.event.name, run.event.payload)
  if (intent.kind === 'run') {
    await beforeRun()
    return true
  }
  if (intent.kind === 'none') {
    logger.info(`Nothing for the loop in this ${run.event.name} event: ${intent.why}.`)
    return false
  }
  if (intent.kind === 'merged') {
    if (!(await mergeEndsShip(loopId, intent.number, deps))) return false
    await beforeRun()
    return true
  }
  // Asked only when a person's command needs authorizing, so a plain dispatch makes no extra call.
  const authorization = await authorizePerson(deps.github, intent.actor, intent.actorType)
  if (intent.kind === 'start') {
    // The label starts work that runs with this repository's secrets: as much a command as `/loop resume`.
    logger.info(`Start ${intent.via === 'label' ? 'label' : 'comment'} from @${intent.actor}: ${authorization.reason}`)
    if (!authorization.allowed) {
      await deps.reportRefusal?.(startRefusal(loopId, authorization.reason, intent.via))
      return false
    }
    // An aborted loop would only say ABORTED again, failing the job: the person is told what works.
    const aborted = (await deps.store.load(loopId))?.state
    if (aborted?.status === 'aborted') {
      logger.info(`Loop ${loopId} was aborted; the start does not run it again.`)
      await deps.reportRefusal?.(abortedStartRefusal(loopId, aborted.statusReason))
      return false
    }
    await beforeRun()
    return true
  }
  logger.info(`Command from @${intent.actor}: ${authorization.reason}`)
  if (!authorization.allowed) return false
  if (intent.kind === 'problem') {
    logger.warning(intent.problem)
    return false
  }
  if (intent.kind === 'review-approval') {
    const loaded = await deps.store.load(loopId)
    const pending = Object.entries(loaded?.state.gates ?? {}).filter(([, gate]) => gate.status === 'pending')
    if (pending.length === 0) {
      logger.info('The review approves no pending gate.')
      return false
    }
    await beforeRun()
    for (const [gate] of pending) await apply({ kind: 'approve', gate }, intent.actor)
    return true
  }
  if (intent.command.kind !== 'abort') await beforeRun()
  const state = await apply(toPeopleCommand(intent.command), intent.actor)
  return state !== null && intent.command.kind !== 'abort'
}

function upperFirst(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`
}

/**
 * A merged pull request runs an iteration only for the loop that waits in SHIP for exactly this pull
 * request (only a writer can merge, so nobody else needs authorizing): that iteration sees the merge and
 * completes. A merge at any other stage is a person's call the loop leaves alone.
 */
async function mergeEndsShip(loopId: string, number: number, deps: PeopleCommandDeps): Promise<boolean> {
  const state = (await deps.store.load(loopId))?.state
  if (state?.stage === 'SHIP' && state.pullRequest?.number === number) {
    deps.logger.info(`Pull request #${number} is merged: loop ${loopId} leaves SHIP.`)
    return true
  }
  const where = state
    ? `in ${state.stage} with ${state.pullRequest ? `#${state.pullRequest.number}` : 'no pull request'}`
    : 'not started'
  deps.logger.info(`Pull request #${number} is merged; loop ${loopId} is ${where}: nothing to do.`)
  return false
}
