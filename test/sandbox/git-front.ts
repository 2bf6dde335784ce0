// The git remote's front: the API's tokens in, `git http-backend` behind.
import { createServer, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { GitServer } from './git-server.js'
import type { RestApi } from './rest-api.js'
import { TOKEN_KIND_HEADER } from './workflow-push-hook.js'

/**
 * The git remote as GitHub serves it: `git http-backend` (git-server.ts) behind a front that takes the
 * same tokens as the API (`x-access-token:<token>` basic auth): a job's GITHUB_TOKEN while the job runs,
 * or a person's token; fetching needs `contents: read`, pushing `contents: write`. The token's kind goes
 * to the backend, whose pre-receive hook refuses what GitHub refuses an app's token (workflow files).
 */
export async function startGitFront(
  api: RestApi,
  backend: GitServer,
  backendToken: string,
): Promise<{ url: string; stop(): Promise<void> }> {
  const backendAuth = `Basic ${Buffer.from(`x-access-token:${backendToken}`).toString('base64')}`
  const server = createServer((req, res) => {
    const basic = /^basic\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]
    const password = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':').slice(1).join(':') : ''
    const grant = api.grantOf(password)
    const pushing = (req.url ?? '').includes('git-receive-pack')
    const level = grant?.permissions.contents
    const allowed = grant !== undefined && (pushing ? level === 'write' : level === 'read' || level === 'write')
    if (!allowed) {
      // GitHub answers an unknown token with 401 and a token without contents permission with 403.
      res.writeHead(grant ? 403 : 401, {
        'content-type': 'text/plain',
        ...(grant ? {} : { 'www-authenticate': 'Basic realm="GitHub"' }),
      })
      res.end(grant ? 'Permission to the repository denied.\n' : 'Invalid username or token.\n')
      req.resume()
      return
    }
    const target = new URL(req.url ?? '/', backend.url)
    const forward = httpRequest(
      target,
      {
        method: req.method,
        headers: { ...req.headers, authorization: backendAuth, [TOKEN_KIND_HEADER]: grant.kind },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    forward.on('error', () => {
      if (!res.headersSent) res.writeHead(502)
      res.end()
    })
    req.pipe(forward)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
