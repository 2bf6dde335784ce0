// actions/upload-artifact and actions/download-artifact between the jobs of one run, kept in a folder
// of the run; each upload is also zipped and published to the results service (`publish`), so the REST
// API lists it with the run's artifacts and a download with a `github-token` takes it from there
// (artifact-rest-download.ts). Without a token, download-artifact asks the runner's artifact service,
// which answers for the job's own attempt: an artifact an earlier attempt uploaded is listed, but its
// download fails with GitHub's `(404) Not Found: workflow run not found` (actions/download-artifact#486:
// what "Re-run failed jobs" meets on GitHub). Paths are files or
// folders relative to the workspace, one per line; wildcards and `!` exclusions are refused. Hidden
// files and folders (a name starting with `.`) are left out unless `include-hidden-files: true`, as
// upload-artifact does since v4.4.0.
// `retention-days` as upload-artifact takes it: a whole number, 0 or empty for the repository's setting
// (90 days, GitHub's default), more than that reduced to it with GitHub's warning; an artifact past its
// retention is not found.
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs'
import { basename, isAbsolute, join, relative, resolve } from 'node:path'
import { globToRegExp } from './artifact-rest-download.js'
import type { WorkflowEngineOptions } from './engine-options.js'
import { zipFolder } from './zip.js'

/** The `with:` keys of the two actions the engine honours. */
export const UPLOAD_INPUTS = new Set(['name', 'path', 'if-no-files-found', 'retention-days', 'include-hidden-files'])
export const DOWNLOAD_INPUTS = new Set([
  'name',
  'path',
  'pattern',
  'merge-multiple',
  'github-token',
  'repository',
  'run-id',
])

/** Publishes an uploaded artifact's zip where the REST API lists it (the results service). */
export type PublishArtifact = (name: string, zip: Buffer, expiresAt: Date, attempt: number) => void

/** The runner artifact service's answer for an artifact of an earlier attempt (actions/download-artifact#486). */
export const EARLIER_ATTEMPT_ERROR =
  'Failed to GetSignedArtifactURL: Received non-retryable error: Failed request: (404) Not Found: workflow run not found'

/** The repository's artifact retention setting: GitHub's default, 90 days. */
export const REPOSITORY_RETENTION_DAYS = 90
const DAY_MS = 24 * 60 * 60 * 1000

export class ArtifactStore {
  /** When each artifact of the run expires (ms since the epoch), by name. */
  private readonly expiries = new Map<string, number>()
  /** The run attempt that uploaded each artifact, by name. */
  private readonly attempts = new Map<string, number>()

  constructor(
    private readonly dir: string,
    private readonly now: () => number = Date.now,
    private readonly publish?: PublishArtifact,
  ) {}

  /** Uploads `paths` (relative to the workspace) as `name`; says what it did, throws what GitHub refuses. */
  upload(workspace: string, withInputs: Record<string, string>, attempt = 1): string {
    const name = withInputs.name || 'artifact'
    const retention = retentionOf(withInputs['retention-days'])
    const target = join(this.dir, name)
    // upload-artifact v4 on: one upload per name and run.
    if (existsSync(target)) {
      throw new Error(
        `Failed to CreateArtifact: Received non-retryable error: Failed request: (409) Conflict: an artifact with this name already exists on the workflow run ('${name}')`,
      )
    }
    const paths = (withInputs.path ?? '')
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
    if (paths.length === 0) throw new Error("input 'path' is required")
    const refused = paths.find((path) => /[*?[\]]/.test(path) || path.startsWith('!'))
    if (refused) throw new Error(`the sandbox's upload-artifact takes plain paths; got '${refused}'`)
    const includeHidden = booleanInput('include-hidden-files', withInputs['include-hidden-files'])
    const shown = (path: string) => includeHidden || !basename(path).startsWith('.')
    const found = paths
      .map((path) => resolve(workspace, path))
      .filter((path) => existsSync(path) && shown(path) && hasFile(path, shown))
    if (found.length === 0) {
      const mode = withInputs['if-no-files-found'] || 'warn'
      if (mode === 'error') throw new Error(`No files were found with the provided path: ${paths.join(', ')}`)
      return `No files were found with the provided path: ${paths.join(', ')}. No artifacts will be uploaded.`
    }
    mkdirSync(target, { recursive: true })
    // As upload-artifact does: one folder uploads its content; paths keep their place under their common folder.
    const only = found.length === 1 ? (found[0] ?? '') : ''
    const options = { recursive: true, filter: shown }
    if (only && statSync(only).isDirectory()) cpSync(only, target, options)
    else {
      const root = commonFolder(found)
      for (const path of found) cpSync(path, join(target, relative(root, path) || basename(path)), options)
    }
    const expiresAt = this.now() + retention.days * DAY_MS
    this.expiries.set(name, expiresAt)
    this.attempts.set(name, attempt)
    try {
      this.publish?.(name, zipFolder(target), new Date(expiresAt), attempt)
    } catch (error) {
      // The results service refused it (a name the run holds there): no artifact of that name is made.
      rmSync(target, { recursive: true, force: true })
      throw error
    }
    return `${retention.warning}Artifact ${name} has been uploaded (${found.length} path(s)), kept ${retention.days} day(s)`
  }

  /**
   * Downloads one artifact by name, or every one (matching `pattern`), into `path` of the workspace, as
   * the runner's artifact service serves a job of `attempt` (download-artifact without a `github-token`).
   */
  download(workspace: string, withInputs: Record<string, string>, attempt = 1): string {
    const destination = withInputs.path ? resolve(workspace, withInputs.path) : workspace
    if (!isAbsolute(destination)) throw new Error(`bad path '${withInputs.path}'`)
    const all = (existsSync(this.dir) ? readdirSync(this.dir).sort() : []).filter(
      (name) => this.now() < (this.expiries.get(name) ?? Number.POSITIVE_INFINITY),
    )
    if (withInputs.name) {
      if (!all.includes(withInputs.name)) throw new Error(`Artifact not found for name: ${withInputs.name}`)
      this.refuseEarlierAttempt(withInputs.name, attempt)
      cpSync(join(this.dir, withInputs.name), destination, { recursive: true })
      return `Artifact ${withInputs.name} downloaded to ${destination}`
    }
    const pattern = withInputs.pattern ? globToRegExp(withInputs.pattern) : /.*/
    const chosen = all.filter((name) => pattern.test(name))
    const merge = withInputs['merge-multiple'] === 'true'
    for (const name of chosen) this.refuseEarlierAttempt(name, attempt)
    for (const name of chosen) {
      cpSync(join(this.dir, name), merge ? destination : join(destination, name), { recursive: true })
    }
    return `${chosen.length} artifact(s) downloaded to ${destination}`
  }

  private refuseEarlierAttempt(name: string, attempt: number): void {
    if ((this.attempts.get(name) ?? attempt) < attempt) throw new Error(EARLIER_ATTEMPT_ERROR)
  }
}

/** An action's boolean input as @actions/core's getBooleanInput reads it (YAML 1.2 core schema). */
function booleanInput(name: string, value: string | undefined): boolean {
  if (value === undefined || value === '') return false
  if (['true', 'True', 'TRUE'].includes(value)) return true
  if (['false', 'False', 'FALSE'].includes(value)) return false
  throw new TypeError(`Input does not meet YAML 1.2 "Core Schema" specification: ${name}`)
}

/** Whether `path` is a file, or a folder with a file somewhere under it, that `shown` lets through. */
function hasFile(path: string, shown: (path: string) => boolean): boolean {
  if (!statSync(path).isDirectory()) return true
  return readdirSync(path).some((name) => shown(join(path, name)) && hasFile(join(path, name), shown))
}

/** upload-artifact's `retention-days`: the days kept, and GitHub's warning when it was reduced. */
function retentionOf(value: string | undefined): { days: number; warning: string } {
  const text = (value ?? '').trim()
  if (text !== '' && !/^\d+$/.test(text)) throw new Error(`Invalid retention-days: '${text}'`)
  const days = Number(text || 0)
  if (days === 0) return { days: REPOSITORY_RETENTION_DAYS, warning: '' }
  if (days <= REPOSITORY_RETENTION_DAYS) return { days, warning: '' }
  return {
    days: REPOSITORY_RETENTION_DAYS,
    warning: `Retention days cannot be greater than the maximum allowed retention set within the repository. Using ${REPOSITORY_RETENTION_DAYS} instead.\n`,
  }
}

function commonFolder(paths: string[]): string {
  const parts = paths.map((path) => resolve(path, '..').split('/'))
  const first = parts[0] ?? []
  let length = 0
  while (length < first.length && parts.every((p) => p[length] === first[length])) length++
  return first.slice(0, length).join('/') || '/'
}

/** A run's artifacts: a folder of the run, each upload also published to the results service's REST list. */
export function runArtifactStore(
  options: Pick<WorkflowEngineOptions, 'root' | 'results'>,
  repository: string,
  runId: number,
  ref: string,
): ArtifactStore {
  const { results } = options
  return new ArtifactStore(
    join(options.root, 'artifacts', String(runId)),
    Date.now,
    results?.publishStepArtifact
      ? (name, zip, expiresAt, runAttempt) =>
          results.publishStepArtifact?.({ name, zip, expiresAt, repository, runId, runAttempt, ref })
      : undefined,
  )
}
