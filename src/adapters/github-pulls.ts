/** A pull request as GitHub's REST API gives it, and as the GitHub port hands it on. */
import type { PullRequestInfo } from '../ports/github.js'

/** The fields of GitHub's pull request the port reads. */
export interface RawPull {
  number: number
  node_id?: string
  html_url: string
  state: string
  merged?: boolean | null
  merged_at?: string | null
  draft?: boolean
  head: { ref: string; repo: { full_name: string } | null }
  base: { ref: string }
}

export function toPullRequest(pull: RawPull): PullRequestInfo {
  return {
    number: pull.number,
    url: pull.html_url,
    state: pull.state === 'closed' ? 'closed' : 'open',
    merged: pull.merged === true || Boolean(pull.merged_at),
    draft: pull.draft === true,
    headRef: pull.head.ref,
    headRepo: pull.head.repo?.full_name ?? null,
    baseRef: pull.base.ref,
  }
}
