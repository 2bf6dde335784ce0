import type { Identity } from '../ports/git.js'

/** The identity of the loop's commits (passed per command, never written to git config). */
export const COMMIT_IDENTITY: Identity = {
  name: 'github-actions[bot]',
  email: '41898282+github-actions[bot]@users.noreply.github.com',
}
