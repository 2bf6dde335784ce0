/**
 * A GitHub repository's web address from the URL of a git remote that points at it, so a listing read
 * from a clone can link what the action links (a run: `https://HOST/OWNER/REPO/actions/runs/ID`).
 * github.com and GitHub Enterprise Server serve the web pages on the host (and scheme) that serves git
 * over HTTP(S), at the same `OWNER/REPO` path; over SSH, the web is HTTPS on that host. Pure.
 */

const OWNER = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})'
const REPO = '[A-Za-z0-9._-]{1,100}'
const HOST = '[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})'

// `https://[user[:token]@]HOST[:port]/OWNER/REPO[.git][/]` (or `http://`, a server without TLS)
const HTTP = new RegExp(`^(https?)://(?:[^@/\\s]*@)?(${HOST}(?::[0-9]{1,5})?)/(${OWNER})/(${REPO})/?$`)
// `git@HOST:OWNER/REPO[.git]` and `ssh://git@HOST[:port]/OWNER/REPO[.git]`: the web is HTTPS on that host.
const SCP = new RegExp(`^()[A-Za-z0-9._-]+@(${HOST}):/?(${OWNER})/(${REPO})$`)
const SSH = new RegExp(`^()ssh://(?:[A-Za-z0-9._-]+@)?(${HOST})(?::[0-9]{1,5})?/(${OWNER})/(${REPO})/?$`)

/** `https://HOST/OWNER/REPO` for a remote URL of a GitHub repository; null for any other (a path, a bundle). */
export function repositoryWebUrl(remoteUrl: string): string | null {
  const url = remoteUrl.trim()
  const match = HTTP.exec(url) ?? SCP.exec(url) ?? SSH.exec(url)
  if (!match) return null
  const [, scheme = '', host = '', owner = '', repo = ''] = match
  const name = repo.replace(/\.git$/, '')
  if (name === '' || name === '.' || name === '..') return null
  return `${scheme || 'https'}://${host.toLowerCase()}/${owner}/${name}`
}
