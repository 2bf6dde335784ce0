/**
 * A loop's `depends-on`, read at its start: the loop config's list and the issue body's line (untrusted
 * text), checked; and the numbers asked about, since one may name no issue of this repository (a typo)
 * or a pull request: no loop of it would ever be COMPLETE, so the loop would wait forever. Such a number
 * refuses the start, naming it, so the person fixes the line and starts again. An answer that does not
 * come only warns: the loop waits as before.
 */
import { ConfigError, messageOf } from '../config/errors.js'
import { interpretEvent } from '../domain/action-event.js'
import { checkDependencies, issueOfLoop, loopOfIssue, parseDependsOnLine } from '../domain/depends-on.js'
import type { LoopConfig } from '../domain/loop-config.js'
import type { DependsOnFault } from '../domain/report/depends-on-refusal.js'
import type { GitHubPort } from '../ports/github.js'
import type { Logger } from '../ports/logger.js'
import type { RunContext } from './run-context.js'

/**
 * A `depends-on` the start is refused for: the issue body's line could not be read (`issue`), the loop
 * config's list names the loop's own issue (`config`), or a number is no issue (`target`). The person
 * who started the loop is told why.
 */
export class DependsOnRefusedError extends ConfigError {
  override name = 'DependsOnRefusedError'
  constructor(
    message: string,
    readonly source: DependsOnFault = 'issue',
  ) {
    super(message)
  }
}

/**
 * The loops this one waits for: the config's `depends-on` and the `depends-on:` line of the issue the
 * event is about (untrusted text: issue numbers of this repository only). A bad line, or a config list
 * that names the loop's own issue (a config shared by every issue's loop), is the user's to fix.
 */
export function dependenciesOf(
  run: Pick<RunContext, 'event'> & Partial<Pick<RunContext, 'repository'>>,
  config: Pick<LoopConfig, 'depends-on'>,
  loopId?: string,
): string[] {
  return readDependencies(run, config, loopId).loops
}

/**
 * `dependenciesOf`, and whether the issue body was read (a start from the issue: its label, `/loop
 * start`): then the list replaces the one a queued loop has, so an edit of the line counts at the next start.
 */
export function readDependencies(
  run: Pick<RunContext, 'event'> & Partial<Pick<RunContext, 'repository'>>,
  config: Pick<LoopConfig, 'depends-on'>,
  loopId?: string,
): { loops: string[]; bodyRead: boolean } {
  const issue = record(run.event.payload.issue)
  const issueNumber = typeof issue?.number === 'number' && !issue.pull_request ? issue.number : null
  // A queued loop's dispatched job carries no issue: its loop id still names its issue.
  const ownIssue = issueNumber ?? (loopId === undefined ? null : issueOfLoop(loopId))
  let fromBody: number[] = []
  // Read when the issue starts the loop (its label, `/loop start`); an edit counts at the next start.
  const starts = interpretEvent(run.event.name, run.event.payload).kind === 'start'
  const body = starts && issueNumber !== null && typeof issue?.body === 'string' ? issue.body : null
  if (body !== null && issueNumber !== null) {
    const line = parseDependsOnLine(body, issueNumber, run.repository ?? null)
    if (line.kind === 'refused') throw new DependsOnRefusedError(`${line.message}.`)
    if (line.kind === 'issues') fromBody = line.issues
  }
  const fromConfig = (config['depends-on'] ?? []).map((value) => Number(String(value).replace('#', '')))
  if (ownIssue !== null && fromConfig.includes(ownIssue)) {
    throw new DependsOnRefusedError(
      `the loop config's 'depends-on' names issue #${ownIssue}, the issue of this loop itself; a loop cannot wait for itself. A 'depends-on' in the loop config applies to every loop that uses that config.`,
      'config',
    )
  }
  const checked = checkDependencies(
    [...fromConfig, ...fromBody],
    ownIssue,
    "'depends-on' (the loop config and the issue body)",
  )
  if (checked.kind === 'refused') throw new DependsOnRefusedError(`${checked.message}.`)
  return { loops: checked.kind === 'issues' ? checked.issues.map(loopOfIssue) : [], bodyRead: body !== null }
}

/** What is wrong with the loops `dependsOn` names (each `issue-N`), or null when each is an issue. */
export async function dependencyTargetsProblem(
  dependsOn: readonly string[],
  repository: string,
  deps: { github: Pick<GitHubPort, 'getIssueKind'>; logger: Pick<Logger, 'warning'> },
): Promise<string | null> {
  const problems: string[] = []
  for (const loopId of dependsOn) {
    const issue = issueOfLoop(loopId)
    if (issue === null) continue
    let kind: Awaited<ReturnType<GitHubPort['getIssueKind']>>
    try {
      kind = await deps.github.getIssueKind(issue)
    } catch (error) {
      deps.logger.warning(`Whether #${issue} (named by depends-on) is an issue is unknown (${messageOf(error)}).`)
      continue
    }
    if (kind === 'none') problems.push(`#${issue}: no such issue in ${repository}`)
    if (kind === 'pull-request') problems.push(`#${issue} is a pull request (depends-on names issues)`)
    if (kind === 'moved')
      problems.push(`#${issue} was moved to another repository (depends-on names this one's issues)`)
  }
  return problems.length === 0 ? null : problems.join('; ')
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined
}
