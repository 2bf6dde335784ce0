// The jobs of one run as a graph: a job starts when the jobs it needs have ended, independent ones in
// parallel (bounded per run); its `if:` reads `needs.<job>.result` and the status functions (without
// one, a job whose need did not succeed is skipped, as on GitHub); `strategy.matrix` (static, or
// `fromJSON(needs.x.outputs.y)`, with include/exclude, fail-fast, max-parallel) makes one job per leg;
// a job that `uses:` a reusable workflow runs that workflow's jobs in this run, with its inputs,
// secrets and outputs.
import { type CallGroupHost, type CallHold, enterCallGroup } from './call-group.js'
import { type ExpressionContext, evaluateIf, evaluateValue, holdsWhenCancelled, interpolate } from './expressions.js'
import type { Conclusion, JobRecord, RunState } from './job-record.js'
import { expandMatrix, legName } from './matrix.js'
import type { JobSpec, Permissions, WorkflowCallSpec, WorkflowSpec } from './workflow-file.js'

/** A job's (or a called workflow's) result and outputs, as `needs.<job>` reads them. */
export interface NodeOutcome {
  result: 'success' | 'failure' | 'cancelled' | 'skipped'
  outputs: Record<string, string>
  /** False when every job of it was kept from the last attempt ("Re-run failed jobs"). */
  ranAnew?: boolean
}

/** A job ready to run, as the graph hands it to the engine. */
export interface ReadyJob {
  job: JobSpec
  context: ExpressionContext
  permissions: Permissions
  workflowEnv: Record<string, string>
  /** The groups the calls above the job hold (lower case): the job's own group must not be one of them. */
  heldAbove?: string[]
}

/** What the graph needs from the engine. */
export interface GraphHost extends CallGroupHost {
  newRecord(run: RunState, jobId: string, name: string, matrix?: Record<string, unknown>): JobRecord
  /** Runs the job (through its concurrency group); resolves with its conclusion when it ends. */
  runJob(record: JobRecord, ready: ReadyJob): Promise<Conclusion>
  finish(record: JobRecord, conclusion: Conclusion, reason: string): void
  /** Cancels a job: kills it when running, ends it when waiting. */
  cancel(record: JobRecord, reason: string): void
  /** Reads the workflow a job's `uses:` names; throws when the engine cannot. */
  readCalledWorkflow(uses: string, run: RunState): WorkflowSpec
  problems: string[]
  isStopped(): boolean
}

/** Runs at most `size` tasks at once; a task starts synchronously when a slot is free. */
export class Limiter {
  private active = 0
  private readonly waiting: (() => void)[] = []
  constructor(private readonly size: number) {}
  run<T>(task: () => Promise<T>): Promise<T> {
    const go = (): Promise<T> => {
      this.active++
      return task().finally(() => {
        this.active--
        this.waiting.shift()?.()
      })
    }
    if (this.active < this.size) return go()
    return new Promise<T>((resolve, reject) => this.waiting.push(() => go().then(resolve, reject)))
  }
}

/** Where a graph runs: its contexts, names and the caps a caller sets. */
export interface GraphScope {
  /** github, inputs, secrets, vars. */
  base: ExpressionContext
  /** `loop / ` for the jobs of a workflow the job `loop` calls. */
  namePrefix: string
  /**
   * What a job without `permissions` (nor its workflow) gets: the calling job's in a called workflow,
   * the repository's default at the top. A called job asking for more refused the run before it started.
   */
  permissionCap: Permissions
  slots: Limiter
  depth: number
  /** The concurrency holds of the calls this graph runs inside, outermost first. */
  holds?: CallHold[]
  /** "Re-run failed jobs": the last attempt's jobs by name (a job no ancestor of which runs anew keeps its). */
  previous?: ReadonlyMap<string, JobRecord>
  /** The calling job runs anew, so every job of the workflow it calls does. */
  rerunAll?: boolean
}

const worst = (results: NodeOutcome['result'][]): NodeOutcome['result'] =>
  results.includes('failure')
    ? 'failure'
    : results.includes('cancelled')
      ? 'cancelled'
      : results.length > 0 && results.every((r) => r === 'skipped')
        ? 'skipped'
        : 'success'

const resultOf = (conclusion: Conclusion | null): NodeOutcome['result'] =>
  conclusion === 'timed_out' || conclusion === null ? 'failure' : conclusion

/** GitHub connects at most ten levels of workflows: the caller and nine levels of reusable workflows. */
export const MAX_CALLED_LEVELS = 9

export class RunGraph {
  private readonly calls = new Map<string, RunGraph | Error>()
  private readonly records = new Map<string, JobRecord>()

  constructor(
    private readonly host: GraphHost,
    private readonly run: RunState,
    readonly spec: WorkflowSpec,
    readonly scope: GraphScope,
  ) {
    // Jobs without a matrix get their record now (a pending run shows them); matrix legs when expanded.
    for (const job of spec.jobs ?? []) {
      const name = `${scope.namePrefix}${job.name && !job.name.includes('${{') ? job.name : job.id}`
      if (job.call) {
        try {
          if (job.strategy) throw new Error(`a matrix of reusable workflow calls ('${job.id}') is not supported`)
          if (scope.depth >= MAX_CALLED_LEVELS) {
            throw new Error(`GitHub connects at most ten levels of workflows; ${job.call.uses} would be the eleventh`)
          }
          const called = host.readCalledWorkflow(job.call.uses, run)
          if (!called.workflowCall) throw new Error(`${job.call.uses} has no 'on: workflow_call'`)
          if (called.workflowConcurrency) throw new Error(`${job.call.uses}: a called workflow's own concurrency`)
          const holds = [...(scope.holds ?? []), {}]
          const nestedScope = { ...scope, namePrefix: `${name} / `, depth: scope.depth + 1, holds }
          this.calls.set(job.id, new RunGraph(host, run, called, nestedScope))
        } catch (error) {
          this.calls.set(job.id, new Error(`job '${job.id}': ${(error as Error).message}`))
        }
      } else if (!job.strategy) this.records.set(job.id, host.newRecord(run, job.id, name))
    }
  }

  /** Every record made so far, nested calls' included. */
  allRecords(): JobRecord[] {
    const nested = [...this.calls.values()].flatMap((call) => (call instanceof RunGraph ? call.allRecords() : []))
    return [...this.records.values(), ...nested]
  }

  /** Runs the jobs; resolves when every one has ended. */
  async start(): Promise<{ result: NodeOutcome['result']; jobs: Record<string, NodeOutcome>; ranAnew: boolean }> {
    const jobs = new Map((this.spec.jobs ?? []).map((job) => [job.id, job]))
    const outcomes = new Map<string, Promise<NodeOutcome>>()
    const outcomeOf = (id: string): Promise<NodeOutcome> => {
      const known = outcomes.get(id)
      if (known) return known
      const job = jobs.get(id)
      if (!job) throw new Error(`sandbox: no job '${id}'`) // parseWorkflow refused unknown needs already
      // A job without needs starts now, synchronously: a dispatch's answer finds it running or pending.
      // The status functions read every ancestor (the needs of its needs too), as GitHub's do.
      const ancestors = ancestorsOf(id, jobs)
      const outcome =
        job.needs.length === 0
          ? this.node(job, {}, {})
          : Promise.all(ancestors.map(outcomeOf)).then((list) => {
              const byAncestor = Object.fromEntries(ancestors.map((a, index) => [a, list[index] as NodeOutcome]))
              const needs = Object.fromEntries(job.needs.map((need) => [need, byAncestor[need] as NodeOutcome]))
              return this.node(job, needs, byAncestor)
            })
      outcomes.set(id, outcome)
      return outcome
    }
    const ids = [...jobs.keys()]
    const list = await Promise.all(ids.map(outcomeOf))
    const byId = Object.fromEntries(ids.map((id, index) => [id, list[index] as NodeOutcome]))
    return { result: worst(list.map((o) => o.result)), jobs: byId, ranAnew: list.some((o) => o.ranAnew !== false) }
  }

  /** Ends every record of this graph (and the graphs it calls) as skipped. */
  skipAll(reason: string): void {
    for (const record of this.records.values()) this.host.finish(record, 'skipped', reason)
    for (const call of this.calls.values()) if (call instanceof RunGraph) call.skipAll(reason)
  }

  private async node(
    job: JobSpec,
    needs: Record<string, NodeOutcome>,
    ancestors: Record<string, NodeOutcome>,
  ): Promise<NodeOutcome> {
    // "If you have a chain of dependent jobs, failure() returns true if any ancestor job fails" (GitHub's
    // docs); success() likewise wants every ancestor to have succeeded, so a job after an `always()` job
    // whose own need failed is skipped (actions/runner#2205). In a cancelled run success() is false.
    const results = Object.values(ancestors).map((n) => n.result)
    const context: ExpressionContext = {
      ...this.scope.base,
      needs: needs,
      $status: {
        success: !this.run.cancelled && results.every((r) => r === 'success'),
        failure: results.includes('failure'),
        cancelled: this.run.cancelled,
      },
    }
    const failing = Object.entries(ancestors).filter(([, n]) => n.result !== 'success')
    const through = (id: string) => (id in needs ? '' : `, an ancestor through ${job.needs.join(', ')}`)
    const skipReason = job.if
      ? `the job's condition is false: ${job.if.trim()}`
      : `a job it needs did not succeed: ${failing.map(([id, n]) => `${id} (${n.result}${through(id)})`).join(', ')}`
    // "Re-run failed jobs" runs anew the failed jobs and every job after one that runs anew.
    const anew = this.scope.rerunAll === true || Object.values(ancestors).some((n) => n.ranAnew !== false)
    try {
      if (job.call) return await this.callNode(job, context, skipReason, anew)
      return await this.jobNode(job, context, skipReason, anew)
    } catch (error) {
      const message = `run ${this.run.runId} job '${this.scope.namePrefix}${job.id}': ${(error as Error).message}`
      this.host.problems.push(message)
      const made = (error as { record?: JobRecord }).record
      const records = made ? [made] : job.call ? this.callRecords(job) : [this.records.get(job.id)]
      let failed = false
      for (const record of records) {
        if (record && record.status !== 'completed') {
          this.host.finish(record, 'failure', message)
          failed = true
        }
      }
      if (!failed && !job.call && job.strategy) {
        this.host.finish(this.host.newRecord(this.run, job.id, this.scope.namePrefix + job.id), 'failure', message)
      }
      return { result: 'failure', outputs: {} }
    }
  }

  /** Why this graph stops: a call it runs inside was interrupted by its concurrency group. */
  private halted(): string | undefined {
    return this.scope.holds?.find((hold) => hold.haltReason)?.haltReason
  }

  private heldAbove(): string[] {
    return (this.scope.holds ?? []).flatMap((hold) => (hold.group ? [hold.group.toLowerCase()] : []))
  }

  private cancelCall(called: RunGraph, reason: string): NodeOutcome {
    for (const record of called.allRecords()) this.host.finish(record, 'cancelled', reason)
    return { result: 'cancelled', outputs: {} }
  }

  private callRecords(job: JobSpec): JobRecord[] {
    const call = this.calls.get(job.id)
    return call instanceof RunGraph ? call.allRecords() : []
  }

  private permissionsOf(job: JobSpec): Permissions {
    return job.permissions ?? this.spec.workflowPermissions ?? this.scope.permissionCap
  }

  /** Ends `record` as the last attempt's job of its name ended, when that one succeeded or was skipped. */
  private keep(record: JobRecord): boolean {
    const last = this.scope.previous?.get(record.name)
    if (last?.conclusion !== 'success' && last?.conclusion !== 'skipped') return false
    record.outputs = { ...last.outputs }
    record.jobOutputs = { ...last.jobOutputs }
    this.host.finish(record, last.conclusion, `kept from attempt ${last.runAttempt} ("Re-run failed jobs")`)
    return true
  }

  private async jobNode(
    job: JobSpec,
    context: ExpressionContext,
    skipReason: string,
    anew: boolean,
  ): Promise<NodeOutcome> {
    // GitHub decides a job's `if:` (its contexts: github, needs, vars, inputs; no matrix) before it
    // expands the job's matrix: a job it skips is one skipped job, and its matrix is never evaluated.
    if (job.strategy && !this.host.isStopped() && !this.run.cancelled && !evaluateIf(job.if, context)) {
      this.host.finish(this.host.newRecord(this.run, job.id, this.scope.namePrefix + job.id), 'skipped', skipReason)
      return { result: 'skipped', outputs: {} }
    }
    const legs = job.strategy ? expandMatrix(evaluateValue(job.strategy.matrix, context), context) : [undefined]
    // GitHub types `fail-fast` as a boolean: an expression giving a string ('false') fails the job.
    const failFast = job.strategy ? evaluateValue(job.strategy.failFast, context) : false
    if (typeof failFast !== 'boolean') throw new Error(`strategy.fail-fast: Unexpected value '${String(failFast)}'`)
    const maxParallel = Number(evaluateValue(job.strategy?.maxParallel, context) ?? legs.length)
    if (!Number.isInteger(maxParallel) || maxParallel < 1) {
      throw new Error(`strategy.max-parallel must be a positive whole number; got ${maxParallel}`)
    }
    const records = job.strategy
      ? legs.map((leg) =>
          this.host.newRecord(this.run, job.id, this.scope.namePrefix + legName(job, leg, context), leg),
        )
      : [this.records.get(job.id) as JobRecord]
    // In a cancelled run only a job whose `if:` asks for it (`always()`, `cancelled()`) still runs.
    const halted = this.halted()
    if (this.host.isStopped() || (this.run.cancelled && !holdsWhenCancelled(job.if, context)) || halted) {
      for (const record of records) this.host.finish(record, 'cancelled', halted ?? 'The run was cancelled')
      return { result: 'cancelled', outputs: {} }
    }
    const legLimit = new Limiter(maxParallel)
    const permissions = this.permissionsOf(job)
    const kept = new Set<JobRecord>()
    const conclusions = await Promise.all(
      legs.map((leg, index) =>
        legLimit.run(async () => {
          const record = records[index] as JobRecord
          if (record.status === 'completed') return record.conclusion
          if (!anew && this.keep(record)) {
            kept.add(record)
            return record.conclusion
          }
          const legContext: ExpressionContext = {
            ...context,
            matrix: leg ?? {},
            strategy: {
              'fail-fast': failFast,
              'job-index': index,
              'job-total': legs.length,
              'max-parallel': maxParallel,
            },
          }
          if (job.name?.includes('${{')) record.name = this.scope.namePrefix + interpolate(job.name, legContext)
          if (!evaluateIf(job.if, legContext)) {
            this.host.finish(record, 'skipped', skipReason)
            return 'skipped'
          }
          const workflowEnv = this.spec.workflowEnv ?? {}
          const ready = { job, context: legContext, permissions, workflowEnv, heldAbove: this.heldAbove() }
          const conclusion = await this.scope.slots.run(() => this.host.runJob(record, ready))
          if (failFast && (conclusion === 'failure' || conclusion === 'timed_out')) {
            const why = `The strategy configuration was canceled because "${job.id}.${index}" failed`
            for (const other of records)
              if (other !== record && other.status !== 'completed') this.host.cancel(other, why)
          }
          return conclusion
        }),
      ),
    )
    const outputs: Record<string, string> = {}
    // A matrix job's outputs: each leg's non-empty values, the last to finish winning, as on GitHub.
    const finished = [...records].sort(
      (a, b) => (a.startedAt ?? 0) + (a.durationMs ?? 0) - ((b.startedAt ?? 0) + (b.durationMs ?? 0)),
    )
    for (const record of finished) {
      for (const [name, value] of Object.entries(record.jobOutputs)) if (value !== '') outputs[name] = value
    }
    return { result: worst(conclusions.map(resultOf)), outputs, ranAnew: records.some((r) => !kept.has(r)) }
  }

  private async callNode(
    job: JobSpec,
    context: ExpressionContext,
    skipReason: string,
    anew: boolean,
  ): Promise<NodeOutcome> {
    const called = this.calls.get(job.id)
    if (called instanceof Error || called === undefined) {
      const record = this.host.newRecord(this.run, job.id, `${this.scope.namePrefix}${job.name ?? job.id}`)
      throw Object.assign(new Error(`${called?.message ?? 'no workflow'}`), { record })
    }
    if (this.run.cancelled && !holdsWhenCancelled(job.if, context)) {
      return this.cancelCall(called, 'The run was cancelled')
    }
    if (!evaluateIf(job.if, context)) {
      called.skipAll(skipReason)
      return { result: 'skipped', outputs: {} }
    }
    const halted = this.halted()
    if (halted) return this.cancelCall(called, halted)
    const call = job.call
    const declared = called.spec.workflowCall as WorkflowCallSpec
    const inputs: Record<string, unknown> = {}
    const given = call?.with ?? {}
    for (const name of Object.keys(given)) {
      if (!(name in declared.inputs))
        throw new Error(`Invalid input, ${name} is not defined in the referenced workflow.`)
    }
    for (const [name, input] of Object.entries(declared.inputs)) {
      // A value given that evaluates to nothing is null (GitHub's ''), not the default.
      const value =
        name in given ? (evaluateValue(given[name], context) ?? null) : evaluateValue(input.default, context)
      if (value === undefined && input.required)
        throw new Error(`Input ${name} is required, but not provided while calling.`)
      inputs[name] = typedInput(name, input.type, value)
    }
    const callerSecrets = (this.scope.base.secrets ?? {}) as Record<string, string>
    let secrets: Record<string, string>
    if (call?.secrets === 'inherit') secrets = { ...callerSecrets }
    else {
      secrets = {}
      for (const [name, value] of Object.entries(call?.secrets ?? {})) {
        if (!(name in declared.secrets))
          throw new Error(`Invalid secret, ${name} is not defined in the referenced workflow.`)
        secrets[name] = interpolate(value, { ...context, secrets: callerSecrets })
      }
    }
    for (const [name, secret] of Object.entries(declared.secrets)) {
      if (secret.required && !secrets[name])
        throw new Error(`Secret ${name} is required, but not provided while calling.`)
    }
    called.scope.base = { ...this.scope.base, inputs, secrets }
    called.scope.permissionCap = this.permissionsOf(job)
    called.scope.rerunAll = anew
    const hold = called.scope.holds?.at(-1) ?? {}
    const entry = job.concurrency
      ? await enterCallGroup(this.host, job.concurrency, context, hold, () => called.allRecords(), this.heldAbove())
      : { release: () => {} }
    if ('cancelled' in entry) return this.cancelCall(called, entry.cancelled)
    let ran: Awaited<ReturnType<RunGraph['start']>>
    try {
      ran = await called.start()
    } finally {
      entry.release()
    }
    const jobsContext = { jobs: ran.jobs, ...called.scope.base }
    const outputs = Object.fromEntries(
      Object.entries(declared.outputs).map(([name, value]) => [name, interpolate(value, jobsContext)]),
    )
    return { result: ran.result, outputs, ranAnew: ran.ranAnew }
  }
}

/** Every job `id` depends on, directly or through its needs, in the order of the file. */
function ancestorsOf(id: string, jobs: ReadonlyMap<string, JobSpec>): string[] {
  const found = new Set<string>()
  const visit = (current: string) => {
    for (const need of jobs.get(current)?.needs ?? []) {
      if (!found.has(need)) {
        found.add(need)
        visit(need)
      }
    }
  }
  visit(id)
  return [...jobs.keys()].filter((job) => found.has(job))
}

/**
 * A `workflow_call` input's value, which must be of its declared type as GitHub types it: a YAML
 * `true` or `3` is a boolean or a number, `'true'` or `'3'` a string; `${{ }}` gives its expression's
 * type (`inputs.flag` of a boolean input is a boolean, `github.event.inputs.flag` a string). GitHub
 * fails the run for any other ("Unexpected value 'false'"; for '' "Unexpected type of value '',
 * expected type: Boolean."). A string input takes a boolean or a number as its text.
 */
function typedInput(name: string, type: 'string' | 'boolean' | 'number', value: unknown): unknown {
  if (value === undefined) return type === 'boolean' ? false : type === 'number' ? 0 : ''
  if (type === 'string') return value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value)
  if (type === 'boolean' && typeof value === 'boolean') return value
  if (type === 'number' && typeof value === 'number' && Number.isFinite(value)) return value
  const expected = type === 'boolean' ? 'Boolean' : 'Number'
  const shown = value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value)
  const why =
    shown !== '' && typeof value !== 'object'
      ? `Unexpected value '${shown}'`
      : `Unexpected type of value '${shown}', expected type: ${expected}.`
  throw new Error(`evaluate reusable workflow inputs: input '${name}': ${why}`)
}
