/**
 * A checkout that persisted its token: `actions/checkout` writes the token into `.git/config` (up to
 * v5) or into a file under RUNNER_TEMP that `.git/config` includes (v6 on), unless told
 * `persist-credentials: false`, and the agent can read both. The controller never needs it there (it
 * hands its token to git at push time), so it takes both out before any command of the project runs,
 * and says how to stop them being written.
 */
import { readFile, rm } from 'node:fs/promises'
import { isAbsolute } from 'node:path'
import type { Git } from '../ports/git.js'
import type { Logger } from '../ports/logger.js'

/** Local config keys through which a persisted token reaches git. */
const CREDENTIAL_KEYS = /^(http\..*\.extraheader|includeif\..*\.path|include\.path|credential\..*)$/i

/** What a credentials file the checkout wrote holds: an auth header for git's HTTP requests. */
const CREDENTIAL_CONTENT = /extraheader|authorization:/i

/**
 * The files the repository's config includes that hold credentials: unsetting the include hides them
 * from git, but the agent can still read the file itself, so it goes too.
 */
async function includedCredentialFiles(git: Pick<Git, 'exec'>): Promise<string[]> {
  const listed = await git.exec(['config', '--local', '--get-regexp', '^(includeif\\..*|include)\\.path$'], {
    allowFailure: true,
  })
  if (listed.exitCode !== 0) return []
  const files: string[] = []
  for (const line of listed.stdout.split('\n')) {
    const path = line.slice(line.indexOf(' ') + 1).trim()
    if (!line.includes(' ') || !isAbsolute(path)) continue
    const text = await readFile(path, 'utf8').catch(() => '')
    if (CREDENTIAL_CONTENT.test(text)) files.push(path)
  }
  return files
}

/** Removes persisted credentials from the repository's own config and the files it includes; returns what went. */
export async function removePersistedCredentials(git: Pick<Git, 'exec'>, logger: Logger): Promise<string[]> {
  for (const file of await includedCredentialFiles(git)) {
    await rm(file, { force: true })
    logger.warning(`The checkout left a credentials file the agent could read (${file}); it was removed for this job.`)
  }
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
