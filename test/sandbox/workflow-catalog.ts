// The workflow files the engine runs, as GitHub finds them: each file under `.github/workflows/` has its
// own id, its own dispatches and its own `on:`, and a run reads the file as it is at the run's commit
// (a dispatch's ref, an event's commit), not as it was when the sandbox started.
import { execFileSync } from 'node:child_process'
import { type FilteredEvent, passesFilters, pullRequestFiles } from './event-filters.js'
import { ApiError } from './rest-api.js'
import { applyOverrides, parseWorkflow, type WorkflowSpec } from './workflow-file.js'

/** A workflow file the engine knows: its name under `.github/workflows/` and the id the API gives it. */
export interface WorkflowEntry {
  file: string
  id: number
}

/** The id of the first workflow (the one `startSandbox({ workflow })` names); the others count up from it. */
export const FIRST_WORKFLOW_ID = 161_335

export interface WorkflowCatalogOptions {
  /** The bare repository the files are read from. */
  bareDir: string
  /** The main workflow, as the sandbox started with it (the test's overrides applied). */
  primary: WorkflowSpec
  /** The test's overrides of the main workflow, applied again to the file at each commit. */
  overrides?: Partial<WorkflowSpec> & { file: string }
  /** More files of `.github/workflows/` whose events the engine delivers (dispatches reach any file). */
  more?: readonly string[]
}

/** The blob of `path` at `sha`, or undefined when the commit has no such file (a local git call). */
function blobAt(bareDir: string, sha: string, path: string): string | undefined {
  if (!sha) return undefined
  try {
    return execFileSync('git', ['--git-dir', bareDir, 'rev-parse', '--verify', '--quiet', `${sha}:${path}`], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim()
  } catch {
    return undefined
  }
}

export class WorkflowCatalog {
  private readonly entries: WorkflowEntry[]
  private readonly parsed = new Map<string, WorkflowSpec>()
  private readonly runNumbers = new Map<string, number>()
  private readonly runs = new Map<number, WorkflowSpec>()

  constructor(private readonly options: WorkflowCatalogOptions) {
    const files = [options.primary.file, ...(options.more ?? []).filter((file) => file !== options.primary.file)]
    this.entries = files.map((file, index) => ({ file, id: FIRST_WORKFLOW_ID + index }))
  }

  get primary(): WorkflowSpec {
    return this.options.primary
  }

  /** The files whose events the engine delivers, the main one first. */
  get listening(): readonly WorkflowEntry[] {
    return this.entries
  }

  /**
   * The file a dispatch's `workflow_id` names (its file name or its id), as GitHub finds it on the
   * default branch; a file of the repository the sandbox was not told of gets its id on first sight.
   */
  entryFor(workflowId: string, defaultSha: string): WorkflowEntry | undefined {
    const known = this.entries.find((entry) => entry.file === workflowId || String(entry.id) === workflowId)
    if (known) return known
    if (!/^[\w.-]+\.ya?ml$/.test(workflowId)) return undefined
    if (!blobAt(this.options.bareDir, defaultSha, `.github/workflows/${workflowId}`)) return undefined
    const entry = { file: workflowId, id: FIRST_WORKFLOW_ID + this.entries.length }
    this.entries.push(entry)
    return entry
  }

  /** The next run number of a file: they count per workflow, as on GitHub. */
  nextRunNumber(file: string): number {
    const next = (this.runNumbers.get(file) ?? 0) + 1
    this.runNumbers.set(file, next)
    return next
  }

  /** Remembers the workflow a run runs (its re-runs run it again). */
  startRun(runId: number, spec: WorkflowSpec): void {
    this.runs.set(runId, spec)
  }

  /** The workflow a run runs. */
  ofRun(runId: number): WorkflowSpec {
    return this.runs.get(runId) ?? this.options.primary
  }

  /** The id of a known file (a run's `workflow_id`). */
  idOf(file: string): number {
    return this.entries.find((entry) => entry.file === file)?.id ?? FIRST_WORKFLOW_ID
  }

  /**
   * The workflow as the file is at `sha`: parsed from the repository when the commit has it (the main
   * workflow with the test's overrides), else the main workflow as the sandbox started with it (a
   * workflow the test gave without a file), else undefined. A file the engine cannot run throws.
   */
  at(file: string, sha: string): WorkflowSpec | undefined {
    const path = `.github/workflows/${file}`
    const blob = blobAt(this.options.bareDir, sha, path)
    if (!blob) return file === this.options.primary.file ? this.options.primary : undefined
    const key = `${file}@${blob}`
    const cached = this.parsed.get(key)
    if (cached) return cached
    const text = execFileSync('git', ['--git-dir', this.options.bareDir, 'cat-file', 'blob', blob], {
      encoding: 'utf8',
    })
    const parsed = parseWorkflow(file, text)
    const overrides = file === this.options.primary.file ? this.options.overrides : undefined
    const spec = overrides ? applyOverrides(parsed, overrides) : parsed
    this.parsed.set(key, spec)
    return spec
  }

  /**
   * What an event's filters read: a pull request's base branch and the files it changes (`base...head`),
   * as GitHub filters `pull_request` and `pull_request_target`; the events the engine delivers with
   * filters are only these (`checkEventFilters` refuses filters under the others).
   */
  filteredEvent(event: string, payload: Record<string, unknown>): FilteredEvent {
    const pull = payload.pull_request as { base?: { ref?: string; sha?: string }; head?: { sha?: string } } | undefined
    if (!event.startsWith('pull_request') || !pull?.base?.ref) {
      throw new Error(`sandbox: the engine applies branch and path filters to pull request events; not to ${event}`)
    }
    const { base, head } = pull
    return {
      branch: base.ref,
      changedFiles: () => pullRequestFiles(this.options.bareDir, base.sha ?? '', head?.sha ?? ''),
    }
  }

  /** The workflow a dispatch runs: the file at the dispatched commit, which must take `workflow_dispatch`. */
  forDispatch(file: string, sha: string): WorkflowSpec {
    let spec: WorkflowSpec | undefined
    try {
      spec = this.at(file, sha)
    } catch (error) {
      throw new ApiError(422, `Workflow .github/workflows/${file} is invalid: ${(error as Error).message}`)
    }
    if (!spec || !(spec.on ?? ['workflow_dispatch']).includes('workflow_dispatch')) {
      throw new ApiError(422, "Workflow does not have 'workflow_dispatch' trigger")
    }
    return spec
  }
}

/**
 * The workflows an event starts, as each file is at `sha`: those whose `on:` has the event and whose
 * `on.<event>.types` (when given) has the payload's `action`; a `schedule` payload's `workflow` names
 * its one file (one the sandbox was not told of too). A file the engine cannot run starts nothing and is
 * a problem.
 */
export function listeningWorkflows(
  catalog: WorkflowCatalog,
  event: string,
  payload: Record<string, unknown>,
  sha: string,
  problems: string[],
): WorkflowSpec[] {
  const named = typeof payload.workflow === 'string' ? payload.workflow.replace(/^\.github\/workflows\//, '') : ''
  // GitHub's cron runs the file it names, listed or not.
  const byName = event === 'schedule' && named !== ''
  const scheduled = byName ? catalog.entryFor(named, sha) : undefined
  const files = byName ? (scheduled ? [scheduled.file] : []) : catalog.listening.map((entry) => entry.file)
  return files.flatMap((file) => {
    let spec: WorkflowSpec | undefined
    try {
      spec = catalog.at(file, sha)
    } catch (error) {
      problems.push(`${event}: .github/workflows/${file} at ${sha.slice(0, 7)}: ${(error as Error).message}`)
      return []
    }
    if (!spec || !(spec.on ?? ['workflow_dispatch']).includes(event)) return []
    const types = spec.activityTypes?.[event]
    if (types && typeof payload.action === 'string' && !types.includes(payload.action)) return []
    const filters = spec.eventFilters?.[event]
    if (filters && !passesFilters(filters, catalog.filteredEvent(event, payload))) return []
    return [spec]
  })
}
