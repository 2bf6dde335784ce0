/**
 * The REST side of GitHub's artifacts, on loopback, sharing `ResultsServer`'s artifact records: what
 * `@actions/artifact` (its `findBy` paths) and the artifact store call.
 *
 * - `GET /repos/{owner}/{repo}/actions/artifacts?name=` (newest first, across runs; paged as GitHub pages)
 * - `GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts?name=`
 * - `GET /repos/{owner}/{repo}/actions/artifacts/{id}`
 * - `GET /repos/{owner}/{repo}/actions/artifacts/{id}/zip`: 302 to a signed blob URL; 410 once expired
 * - `DELETE /repos/{owner}/{repo}/actions/artifacts/{id}`: 204
 *
 * `artifactsRestHandler` returns a `(req, res, url) => boolean` that a larger REST stand-in can mount
 * (it answers and returns true for these paths, false for any other); `startArtifactsRest` serves it
 * alone for tests. Requests need `Authorization: token <t>` or `Bearer <t>` with the configured token.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { paginate } from './pagination.js'
import type { ArtifactRecord, ResultsServer } from './results-server.js'

export interface ArtifactsRestOptions {
  /** The token REST calls must carry. */
  token: string
}

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => boolean

/** The handler for the artifact REST endpoints, over `results`' records. */
export function artifactsRestHandler(results: ResultsServer, options: ArtifactsRestOptions): Handler {
  return (req, res, url) => {
    const match =
      /\/repos\/([^/]+)\/([^/]+)\/actions\/(?:artifacts(?:\/(\d+)(?:\/(zip))?)?|runs\/(\d+)\/artifacts)\/?$/.exec(
        url.pathname,
      )
    if (!match) return false
    const [, owner, repo, idText, zip, runText] = match
    const repository = `${decodeURIComponent(owner!)}/${decodeURIComponent(repo!)}`
    const send = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers })
      res.end(body === undefined ? undefined : JSON.stringify(body))
    }
    const auth = String(req.headers.authorization ?? '').replace(/^(token|bearer)\s+/i, '')
    if (auth !== options.token) {
      send(401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' })
      return true
    }
    const apiRoot = `${url.origin}${url.pathname.slice(0, url.pathname.indexOf('/repos/'))}`
    const present = (a: ArtifactRecord) => a.finalized && a.repository === repository
    for (const artifact of results.artifacts) {
      if (!artifact.expired && artifact.expiresAt.getTime() < Date.now()) artifact.expired = true
    }
    if (idText) {
      const artifact = results.artifacts.find((a) => present(a) && a.id === Number(idText))
      if (!artifact) {
        send(404, { message: 'Not Found' })
        return true
      }
      if (req.method === 'DELETE' && !zip) {
        results.deleteArtifact(artifact.id)
        send(204)
        return true
      }
      if (req.method !== 'GET') {
        send(405, { message: 'Method Not Allowed' })
        return true
      }
      if (zip) {
        if (artifact.expired) send(410, { message: 'Artifact has expired' })
        else send(302, undefined, { location: results.signBlobUrl(artifact.blob, 'r') })
        return true
      }
      send(200, describeArtifact(artifact, apiRoot))
      return true
    }
    if (req.method !== 'GET') {
      send(405, { message: 'Method Not Allowed' })
      return true
    }
    const name = url.searchParams.get('name')
    const all = results.artifacts
      .filter(present)
      .filter((a) => name === null || a.name === name)
      .filter((a) => runText === undefined || a.runId === Number(runText))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id - a.id)
    const { page, headers } = paginate(all, url)
    send(200, { total_count: all.length, artifacts: page.map((a) => describeArtifact(a, apiRoot)) }, headers)
    return true
  }
}

function describeArtifact(artifact: ArtifactRecord, apiRoot: string) {
  const url = `${apiRoot}/repos/${artifact.repository}/actions/artifacts/${artifact.id}`
  return {
    id: artifact.id,
    node_id: Buffer.from(`Artifact:${artifact.id}`).toString('base64'),
    name: artifact.name,
    size_in_bytes: artifact.size,
    url,
    archive_download_url: `${url}/zip`,
    expired: artifact.expired,
    created_at: artifact.createdAt.toISOString(),
    updated_at: artifact.createdAt.toISOString(),
    expires_at: artifact.expiresAt.toISOString(),
    digest: artifact.digest,
    workflow_run: {
      id: artifact.runId,
      repository_id: 1,
      head_repository_id: 1,
      head_branch: artifact.ref.replace(/^refs\/heads\//, ''),
      head_sha: '0000000000000000000000000000000000000000',
    },
  }
}

/** Serves only the artifact REST endpoints on 127.0.0.1 (port 0); `url` is the API base URL. */
export async function startArtifactsRest(
  results: ResultsServer,
  options: ArtifactsRestOptions,
): Promise<{ url: string; close(): Promise<void> }> {
  const handler = artifactsRestHandler(results, options)
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`)
    if (!handler(req, res, url)) {
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ message: 'Not Found' }))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
