/**
 * A checkout that persisted its token: `actions/checkout` writes the token into `.git/config` (or a
 * file that config includes) unless told `persist-credentials: false`, and the agent can read both.
 * The controller never needs it there (it hands its token to git at push time), so it takes it out
 * before any command of the project runs, and says how to stop it being written.
 */
import type { Git } from '../ports/git.js'
import type { Logger } from '../ports/logger.js'

/** Local config keys through which a persisted token reaches git. */
const CREDENTIAL_KEYS = /^(http\..*\.extraheader|includeif\..*\.path|include\.path|credential\..*)$/i

/** Removes persisted credentials from the repository's own config; returns the keys it removed. */
export async function removePersistedCredentials(git: Pick<Git, 'exec'>, logger: Logger): Promise<string[]> {
  const listed = await git.exec(['config', '--local', '--name-only', '--list'], { allowFailure: true })
  if (listed.exitCode !== 0) return []
  const keys = [...new Set(listed.stdout.split('\n').filter((key) => CREDENTIAL_KEYS.test(key.trim())))]
  for (const key of keys) await git.exec(['config', '--local', '--unset-all', key.trim()], { allowFailure: true })
  if (keys.length > 0) {
    logger.warning(
      `The checkout left credentials in .git/config (${keys.join(', ')}), where the agent could read them; they were removed for this job. Check out with \`persist-credentials: false\`: loop-controller gives its token to git push alone.`,
    )
  }
  return keys
}
