// actions/download-artifact given a `github-token`: it leaves the runner's artifact service and goes
// through the public REST API, as @actions/artifact's `findBy` does: the run's artifacts listed
// (`GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts`, by `name`, or every page of 100),
// each downloaded from the 302 of `GET /repos/{owner}/{repo}/actions/artifacts/{id}/zip`. These
// artifacts belong to the run, not to an attempt: a re-run's job finds those of the attempts before.
// The calls go to the REST stand-in with the job's token, so they are validated against GitHub's
// description and need the token's `actions: read`, as on GitHub.
import { createHash } from 'node:crypto'
import { join, resolve } from 'node:path'
import { unzipInto } from './zip.js'

/** Where the download runs and what it was given (the step's `with:`). */
export interface RestDownloadRequest {
  workspace: string
  apiUrl: string
  /** The job's repository and run: `repository` and `run-id` default to them, as download-artifact's do. */
  repository: string
  runId: string
  with: Record<string, string>
  /** The step's major (`@v8`): from v8 on a digest mismatch fails the step by default, before it only warns. */
  major: number
}

interface ListedArtifact {
  id: number
  name: string
  digest?: string | null
}

/** Downloads as download-artifact does with a token; says what it did, throws its error message. */
export async function downloadThroughRest(request: RestDownloadRequest): Promise<string> {
  const inputs = request.with
  const token = inputs['github-token'] ?? ''
  const repository = inputs.repository || request.repository
  const [owner, repo] = repository.split('/')
  if (!owner || !repo) throw new Error(`Invalid repository: '${repository}'. Must be in format owner/repo`)
  const runId = Number.parseInt(inputs['run-id'] || request.runId, 10)
  const call = async (path: string, redirect: 'follow' | 'manual' = 'follow') => {
    const response = await fetch(`${request.apiUrl}${path}`, {
      headers: { authorization: `token ${token}`, accept: 'application/vnd.github+json' },
      redirect,
    })
    if (response.status >= 400) {
      const body = (await response.json().catch(() => ({}))) as { message?: string }
      throw new Error(`${body.message ?? response.statusText} - https://docs.github.com/rest`)
    }
    return response
  }
  const runArtifacts = `/repos/${owner}/${repo}/actions/runs/${runId}/artifacts`
  const list = async (query: string) =>
    (await (await call(`${runArtifacts}?${query}`)).json()) as { total_count: number; artifacts: ListedArtifact[] }
  let chosen: ListedArtifact[]
  const single = Boolean(inputs.name)
  if (inputs.name) {
    const { artifacts } = await list(`name=${encodeURIComponent(inputs.name)}`)
    const newest = artifacts.sort((a, b) => b.id - a.id)[0]
    if (!newest) throw new Error(`Artifact not found for name: ${inputs.name}`)
    chosen = [newest]
  } else {
    const all: ListedArtifact[] = []
    const first = await list('per_page=100&page=1')
    all.push(...first.artifacts)
    for (let page = 2; page <= Math.ceil(first.total_count / 100); page++) {
      all.push(...(await list(`per_page=100&page=${page}`)).artifacts)
    }
    // `latest: true`: the newest artifact of each name.
    const seen = new Set<string>()
    chosen = all.sort((a, b) => b.id - a.id).filter((artifact) => !seen.has(artifact.name) && seen.add(artifact.name))
    if (inputs.pattern) {
      const pattern = globToRegExp(inputs.pattern)
      chosen = chosen.filter((artifact) => pattern.test(artifact.name))
    }
  }
  const destination = inputs.path ? resolve(request.workspace, inputs.path) : request.workspace
  const merge = inputs['merge-multiple'] === 'true'
  const mismatched: string[] = []
  for (const artifact of chosen) {
    const redirect = await call(`/repos/${owner}/${repo}/actions/artifacts/${artifact.id}/zip`, 'manual')
    const location = redirect.headers.get('location')
    if (redirect.status !== 302 || !location) {
      throw new Error(`Unable to download artifact. Unexpected status: ${redirect.status}`)
    }
    const blob = await fetch(location)
    if (!blob.ok) throw new Error(`Unable to download and extract artifact: blob answered ${blob.status}`)
    const zip = Buffer.from(await blob.arrayBuffer())
    const digest = `sha256:${createHash('sha256').update(zip).digest('hex')}`
    if (artifact.digest && artifact.digest !== digest) mismatched.push(artifact.name)
    const target = single || merge ? destination : join(destination, artifact.name)
    unzipInto(zip, target)
  }
  // download-artifact checks each download against the digest GitHub listed; v8 made a mismatch an error
  // (its `digest-mismatch: error` default), earlier majors log a warning and keep the files.
  if (mismatched.length > 0 && request.major >= 8) {
    throw new Error(`Digest validation failed for artifact(s): ${mismatched.join(', ')}`)
  }
  const warned = mismatched.map((name) => `::warning::Digest validation failed for artifact '${name}'\n`).join('')
  return `${warned}${chosen.length} artifact(s) downloaded to ${destination} through the REST API (run ${runId})`
}

/** download-artifact's `pattern`: `*` and `?` wildcards. */
export function globToRegExp(glob: string): RegExp {
  const escaped = glob
    .replace(/[.+^${}()|\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.')
  return new RegExp(`^${escaped}$`)
}
