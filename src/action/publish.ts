/**
 * Publishing an iteration's commit: push the loop's branch (fetch, rebase and retry on a moved remote)
 * and open its draft pull request once. A push that cannot land blocks the loop, since a person must
 * sort out the branch.
 */

import { writeEnding } from '../app/iteration/audit.js'
import type { IterationResult } from '../app/iteration.js'
import { saveWithEvents } from '../app/journaled-save.js'
import { pushLoopBranch } from '../app/loop-branch.js'
import { markBlocked } from '../domain/engine/index.js'
import { pushPermissionHint } from '../domain/git-errors.js'
import { PULL_REQUEST_SETTING, type PullRequestWaiting } from '../domain/report/index.js'
import { hasEnded } from '../domain/slots.js'
import type { LoopState } from '../domain/state.js'
import type { AuditLog } from '../ports/audit.js'
import type { Clock } from '../ports/clock.js'
import type { Git } from '../ports/git.js'
import { type GitHubPort, GitHubRateLimitedError, PullRequestsNotAllowedError } from '../ports/github.js'
import type { Logger } from '../ports/logger.js'
import type { Store } from '../ports/store.js'
import type { ActionIO } from './actions-io.js'
import { COMMIT_IDENTITY } from './commit-identity.js'
import type { RunContext } from './run-context.js'

export interface PublishDeps {
  /** The checkout's git, or null when the loop does not commit. */
  git: Git | null
  github: Pick<GitHubPort, 'findOrCreatePullRequest'>
  store: Store
  /** The loop's trail: each save here records its journey events, and a BLOCKED one its handoff. */
  audit: AuditLog
  logger: Logger
  io: Pick<ActionIO, 'group'>
  clock: Clock
}

export interface Published {
  state: LoopState
  /** True when the push failed and the loop is now BLOCKED. */
  blocked: boolean
  /** The branch is pushed, but GitHub's setting kept the job's token from opening its pull request. */
  pullRequestWaiting?: PullRequestWaiting
}

/**
 * Publishes the iteration's commit when there is one and a remote `origin` to push to; without a
 * remote the work stays on the local branch.
 */
export async function publishIteration(
  run: Pick<RunContext, 'settings' | 'event' | 'serverUrl' | 'repository'>,
  input: { loopId: string; branch: string; result: IterationResult },
  deps: PublishDeps,
): Promise<Published> {
  const { git, logger } = deps
  if (!git) return { state: input.result.state, blocked: false }
  const hasRemote = (await git.exec(['remote', 'get-url', 'origin'], { allowFailure: true })).exitCode === 0
  if (!hasRemote) logger.info(`No remote 'origin': the work stays on the local branch ${input.branch}.`)
  if (!hasRemote || input.result.commit === null) return { state: input.result.state, blocked: false }
  return publish(run, input, { ...deps, git })
}

async function publish(
  run: Pick<RunContext, 'settings' | 'event' | 'serverUrl' | 'repository'>,
  input: { loopId: string; branch: string; result: IterationResult },
  deps: PublishDeps & { git: Git },
): Promise<Published> {
  const { git, github, logger } = deps
  const { loopId, branch, result } = input
  let state = result.state
  let version = result.version
  // The git adapter hands the push token to fetch and push itself (see `GitCliOptions.networkEnv`).
  const pushed = await deps.io.group(`Push ${branch}`, () => pushLoopBranch(git, { branch, identity: COMMIT_IDENTITY }))
  if (pushed.kind !== 'pushed') {
    const reason =
      pushed.kind === 'conflict'
        ? `merge-conflict: ${branch} changed on the remote and conflicts in ${pushed.paths.join(', ')}`
        : `git-error: pushing ${branch} failed: ${pushed.message.split('\n')[0]}${pushPermissionHint(pushed.message)}`
    logger.error(pushed.message)
    const blocked = markBlocked(state, reason, deps.clock.now())
    // The handoff goes into the trail before the save that carries it (a snapshotting store uploads both).
    await writeEnding(loopId, deps, 'blocked', blocked.state, reason)
    version = await saveWithEvents(loopId, blocked.state, blocked.events, version, deps)
    return { state: blocked.state, blocked: true }
  }
  if (!state.pullRequest) {
    // The task is in the state, so a re-dispatched job (whose event has no issue) still closes it.
    const issue = state.task?.source === 'issue' ? state.task.number : run.event.issueToClose
    const closes = issue !== null ? `\n\nCloses #${issue}.` : ''
    let pull: Awaited<ReturnType<typeof github.findOrCreatePullRequest>>
    try {
      pull = await github.findOrCreatePullRequest({
        head: branch,
        base: run.event.defaultBranch,
        title: `loop: ${(state.task?.title || state.goal).split('\n')[0]?.slice(0, 200) ?? loopId}`,
        body: `The work of loop \`${loopId}\`, made by loop-controller and checked by its verification matrix.${closes}`,
        draft: true,
      })
    } catch (error) {
      const compareUrl = `${run.serverUrl}/${run.repository}/compare/${run.event.defaultBranch}...${branch}?expand=1`
      if (error instanceof GitHubRateLimitedError) {
        // The work is safe on the pushed branch; a loop that goes on asks again next iteration, after the
        // reset, and one that ended here has no next iteration: a person opens its pull request.
        const who = hasEnded(state.status)
          ? `the loop ended ${state.status}, so no later iteration opens its pull request: open it from ${compareUrl}`
          : 'its pull request is opened by a later iteration'
        logger.warning(`${error.message}. ${branch} is pushed; ${who}.`)
        return { state, blocked: false }
      }
      if (!(error instanceof PullRequestsNotAllowedError)) throw error
      // The work is safe on the pushed branch; the loop goes on and asks again next iteration.
      logger.warning(
        `${error.message}. The repository setting "${PULL_REQUEST_SETTING}" is off: turn it on (Settings → Actions → General → Workflow permissions) or set the push-token input. ${branch} is pushed: ${compareUrl}`,
      )
      return { state, blocked: false, pullRequestWaiting: { branch, compareUrl } }
    }
    logger.info(`Pull request #${pull.number} ${pull.created ? 'opened' : 'found'}: ${pull.url}`)
    const at = deps.clock.now().toISOString()
    state = { ...state, pullRequest: { number: pull.number, url: pull.url, merged: pull.merged }, updatedAt: at }
    const opened = {
      at,
      iteration: state.iteration,
      type: 'pull-request' as const,
      message: `pull request #${pull.number} ${pull.created ? 'opened' : 'found'}: ${pull.url}`,
      data: { number: pull.number },
    }
    version = await saveWithEvents(loopId, state, [opened], version, deps)
  }
  return { state, blocked: false }
}
