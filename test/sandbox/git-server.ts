/**
 * A real git remote on loopback: `git http-backend` (the CGI that ships with git) behind a Node HTTP
 * server, over bare repositories in a temporary folder. Requests need HTTP basic auth as GitHub takes a
 * token (`x-access-token:<token>`); without it the server answers 401 and git reports an
 * authentication failure. Each repository's pre-receive hook (workflow-push-hook.ts) refuses a push by
 * an installation token that changes `.github/workflows/`, and every push while `rejectPushes(reason)`.
 */
import { execFile, spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { PRE_RECEIVE_HOOK, REJECT_REASON_FILE, TOKEN_KIND_HEADER } from './workflow-push-hook.js'

const run = promisify(execFile)

export interface GitServerOptions {
  /** The token clients must send as the basic-auth password (user `x-access-token`). */
  token: string
}

export class GitServer {
  /** Every request: method, path, status, and the bytes of its body (a push's pack, for one). */
  readonly requests: Array<{ method: string; path: string; status: number; bytesIn: number }> = []
  private server!: Server
  /** The folder holding the bare repositories. */
  readonly root = mkdtempSync(join(tmpdir(), 'git-server-'))
  url = ''

  private constructor(private readonly options: GitServerOptions) {}

  /** Starts on 127.0.0.1 (port 0). */
  static async start(options: GitServerOptions): Promise<GitServer> {
    const git = new GitServer(options)
    git.server = createServer((req, res) => git.handle(req, res))
    await new Promise<void>((resolve) => git.server.listen(0, '127.0.0.1', resolve))
    git.url = `http://127.0.0.1:${(git.server.address() as AddressInfo).port}`
    return git
  }

  /** Creates an empty bare repository `name` (e.g. `octo/loop.git`) and returns its clone URL. */
  async createRepository(name: string): Promise<string> {
    const dir = this.repositoryPath(name)
    await mkdir(dir, { recursive: true })
    await run('git', ['init', '--bare', '--quiet', '--initial-branch=main', dir])
    await run('git', ['-C', dir, 'config', 'http.receivepack', 'true'])
    await writeFile(join(dir, 'hooks', 'pre-receive'), PRE_RECEIVE_HOOK)
    await chmod(join(dir, 'hooks', 'pre-receive'), 0o755)
    return `${this.url}/${name}`
  }

  /** The bare repository's folder, for assertions (`git --git-dir=... show`). */
  repositoryPath(name: string): string {
    return join(this.root, name)
  }

  /** Makes every push to `name` fail in a pre-receive hook with `reason` (null: accept pushes again). */
  async rejectPushes(name: string, reason: string | null): Promise<void> {
    const file = join(this.repositoryPath(name), REJECT_REASON_FILE)
    if (reason === null) await rm(file, { force: true })
    else await writeFile(file, `${reason}\n`)
  }

  async close(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
    await rm(this.root, { recursive: true, force: true })
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', this.url)
    const expected = Buffer.from(`x-access-token:${this.options.token}`).toString('base64')
    // The scheme is case-insensitive (RFC 7235), and actions/checkout itself writes `basic`.
    const [scheme, credentials] = (req.headers.authorization ?? '').split(/\s+/, 2)
    if (scheme?.toLowerCase() !== 'basic' || credentials !== expected) {
      this.requests.push({ method: req.method ?? '', path: url.pathname, status: 401, bytesIn: 0 })
      res.writeHead(401, { 'www-authenticate': 'Basic realm="loopback git"', 'content-type': 'text/plain' })
      res.end('authentication required\n')
      return
    }
    const child = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        GIT_PROJECT_ROOT: this.root,
        GIT_HTTP_EXPORT_ALL: '1',
        REMOTE_USER: 'x-access-token',
        REMOTE_ADDR: '127.0.0.1',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.replace(/^\?/, ''),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
        GIT_CONFIG_NOSYSTEM: '1',
        HOME: this.root,
        // Who pushes, as the front found the token: the pre-receive hook refuses workflow changes of an app.
        SANDBOX_TOKEN_KIND: String(req.headers[TOKEN_KIND_HEADER] ?? ''),
      },
    })
    const entry = { method: req.method ?? '', path: url.pathname, status: 0, bytesIn: 0 }
    req.on('data', (chunk: Buffer) => {
      entry.bytesIn += chunk.length
    })
    req.pipe(child.stdin)
    let head = Buffer.alloc(0)
    let headersDone = false
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk)
        return
      }
      head = Buffer.concat([head, chunk])
      const end = head.indexOf('\r\n\r\n')
      const endLf = head.indexOf('\n\n')
      const cut = end >= 0 ? end : endLf
      if (cut < 0) return
      const sepLength = end >= 0 ? 4 : 2
      const lines = head.subarray(0, cut).toString('latin1').split(/\r?\n/)
      let status = 200
      const headers: Record<string, string> = {}
      for (const line of lines) {
        const colon = line.indexOf(':')
        if (colon < 0) continue
        const name = line.slice(0, colon).trim()
        const value = line.slice(colon + 1).trim()
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10)
        else headers[name] = value
      }
      headersDone = true
      entry.status = status
      this.requests.push(entry)
      res.writeHead(status, headers)
      res.write(head.subarray(cut + sepLength))
    })
    child.stdout.on('end', () => {
      if (!headersDone) {
        res.writeHead(502)
      }
      res.end()
    })
    child.on('error', () => {
      if (!res.headersSent) res.writeHead(500)
      res.end()
    })
  }
}
