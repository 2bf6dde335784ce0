/**
 * Tells people why the loop refused something for safety: in the job summary, and in a comment on the
 * issue or pull request the event is about (its own comment, updated in place on a repeat, so the
 * loop's status comment keeps its status).
 */
import { refusalCommentMarker } from '../domain/loop-names.js'
import { type Refusal, renderRefusal, renderRefusalComment } from '../domain/report/index.js'
import type { GitHubPort } from '../ports/github.js'
import type { ActionIO } from './actions-io.js'
import type { RunContext } from './run-context.js'

export async function reportRefusal(
  run: Pick<RunContext, 'event' | 'hasStepSummary'>,
  refusal: Refusal,
  deps: {
    github: Pick<GitHubPort, 'upsertStickyComment'>
    io: Pick<ActionIO, 'writeSummary' | 'info'>
    redact: (text: string) => string
  },
): Promise<void> {
  const { github, io, redact } = deps
  io.info(`${redact(refusal.title)} ${redact(refusal.reason)}`)
  if (run.hasStepSummary) await io.writeSummary(renderRefusal(refusal, redact))
  const issueNumber = run.event.subject.number
  if (issueNumber === null) return
  const comment = await github.upsertStickyComment({
    issueNumber,
    marker: refusalCommentMarker(refusal.loopId),
    body: renderRefusalComment(refusal, redact),
  })
  io.info(`Refusal ${comment.created ? 'posted' : 'updated'}: ${comment.url}`)
}
