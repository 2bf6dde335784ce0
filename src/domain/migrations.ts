/**
 * Reading `loop-state.json` written by any schema version: older versions are
 * migrated step by step through a registry, a newer one is refused, and the result is validated with
 * `loopStateSchema`. Pure: the caller reads the file and handles the errors (quarantine, exit code 2).
 */
import { z } from 'zod'
import { STAGES, type Stage } from './stages.js'
import { type LoopState, loopStateSchema, STATE_SCHEMA_VERSION } from './state.js'

/**
 * A state that does not match the schema. It is a `ZodError` (its `issues` are zod's) whose message
 * names each bad field, the problem and, where zod knows it, what was expected.
 */
export class StateValidationError extends z.ZodRealError {
  constructor(issues: z.core.$ZodIssue[], source = 'loop-state.json') {
    super(issues)
    this.name = 'StateValidationError'
    this.message = describeIssues(issues, source)
  }
}

function describeIssues(issues: readonly z.core.$ZodIssue[], source: string): string {
  const shown = issues.slice(0, 10).map((issue) => {
    const path = issue.path.length > 0 ? issue.path.map(String).join('.') : '(the whole state)'
    return `  - ${path}: ${issue.message}`
  })
  const more = issues.length > shown.length ? `\n  ... and ${issues.length - shown.length} more` : ''
  return `${source} is not a valid loop state:\n${shown.join('\n')}${more}`
}

/** One step: a raw state of version `from` to a raw state of version `from + 1`. */
/** Thrown when a state was written by a newer schema than this code understands. */
export class StateFromTheFutureError extends Error {
  override name = 'StateFromTheFutureError'
}

export type Migration = (raw: Record<string, unknown>) => Record<string, unknown>

/** Migrations by the version they start from. Version 0 is the pre-release shape with no schemaVersion. */
export const MIGRATIONS: Readonly<Record<number, Migration>> = {
  0: migrateV0ToV1,
}

export interface MigrationResult {
  state: LoopState
  /** The version the state was read as, when it was migrated; null when it was current. */
  migratedFrom: number | null
}

/**
 * Validates a raw state and migrates it to {@link STATE_SCHEMA_VERSION}. Throws
 * {@link StateFromTheFutureError} for a newer version (the message says which controller to use) and
 * {@link StateValidationError} for a bad shape.
 */
export function migrateState(
  raw: unknown,
  packageVersion: string,
  source = 'loop-state.json',
  migrations: Readonly<Record<number, Migration>> = MIGRATIONS,
): MigrationResult {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    const got = raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw
    throw new StateValidationError(
      [{ code: 'custom', path: [], message: `expected a JSON object, got ${got}`, input: raw }],
      source,
    )
  }
  let current = raw as Record<string, unknown>
  const declared = current.schemaVersion
  if (declared !== undefined && (typeof declared !== 'number' || !Number.isInteger(declared) || declared < 1)) {
    throw new StateValidationError(
      [
        {
          code: 'custom',
          path: ['schemaVersion'],
          message: `expected a whole number from 1 to ${STATE_SCHEMA_VERSION}, got ${JSON.stringify(declared)}`,
          input: declared,
        },
      ],
      source,
    )
  }
  const version = declared ?? 0
  if (version > STATE_SCHEMA_VERSION) {
    throw new StateFromTheFutureError(
      `${source} has schemaVersion ${version}, but loop-controller ${packageVersion} reads schemaVersion ` +
        `${STATE_SCHEMA_VERSION} at most: it was written by a newer loop-controller. Run this loop with that ` +
        `newer release (the action ref or the CLI version that wrote it, e.g. \`npx --yes github:loop-controller/loop-controller#v1\`); ` +
        `the state was left untouched.`,
    )
  }
  for (let from = version; from < STATE_SCHEMA_VERSION; from++) {
    const migration = migrations[from]
    if (!migration) {
      throw new StateValidationError(
        [
          {
            code: 'custom',
            path: ['schemaVersion'],
            message: `no migration from schemaVersion ${from} to ${from + 1} in loop-controller ${packageVersion}`,
            input: from,
          },
        ],
        source,
      )
    }
    current = { ...migration(current), schemaVersion: from + 1 }
  }
  const parsed = loopStateSchema.safeParse(current)
  if (!parsed.success) throw new StateValidationError(parsed.error.issues, source)
  return { state: parsed.data, migratedFrom: version === STATE_SCHEMA_VERSION ? null : version }
}

type Raw = Record<string, unknown>

const isRecord = (value: unknown): value is Raw => typeof value === 'object' && value !== null && !Array.isArray(value)
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])
const asString = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined)
const asNumber = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined

const isStage = (value: unknown): value is Stage =>
  typeof value === 'string' && (STAGES as readonly string[]).includes(value)

const V0_STAGE_STATUS: Record<string, 'pending' | 'active' | 'done' | 'skipped'> = {
  pending: 'pending',
  'in-progress': 'active',
  active: 'active',
  complete: 'done',
  completed: 'done',
  done: 'done',
  skipped: 'skipped',
}

/**
 * Version 0: the pre-release shape (the loop-controller skill's `loop-state.json`): `state` instead of
 * `stage` (and FAILED/RETRY/BLOCKED in it), `stateEnteredAt`, `systemId`/`systemName`, a `completed`
 * capability count, stage statuses `complete`/`in-progress`, `failures.count`/`maxRetries`, gates with
 * `required`/`approvedBy`, checkpoints with `hash`, `skillsLog`. Fields with no place in version 1
 * (branch, worktree, skillsUsage, ...) are dropped; what cannot be recovered gets a safe default. The
 * iteration count is unknown in version 0 and starts at what the file says, else 0.
 */
function migrateV0ToV1(raw: Raw): Raw {
  const stagesIn = isRecord(raw.stages) ? raw.stages : {}
  const stages: Raw = {}
  for (const [name, value] of Object.entries(stagesIn)) {
    if (!isStage(name) || !isRecord(value)) continue
    const status = V0_STAGE_STATUS[String(value.status)] ?? 'pending'
    const entry: Raw = { status }
    const entered = asString(value.enteredAt) ?? asString(value.startedAt)
    if (entered) entry.enteredAt = entered
    const completed = asString(value.completedAt)
    if (completed) entry.completedAt = completed
    stages[name] = entry
  }
  const stageNames = Object.keys(stages) as Stage[]
  const pipeline = Array.isArray(raw.pipeline)
    ? raw.pipeline
    : stageNames.length > 0
      ? STAGES.filter((s) => stageNames.includes(s))
      : [...STAGES]

  const rawState = raw.stage ?? raw.state
  const activeStage = stageNames.find((s) => (stages[s] as Raw).status === 'active')
  const firstPending = stageNames.find((s) => (stages[s] as Raw).status === 'pending')
  const stage = isStage(rawState) ? rawState : (activeStage ?? firstPending ?? 'COMPLETE')
  const status =
    asString(raw.status) ?? (rawState === 'BLOCKED' ? 'blocked' : stage === 'COMPLETE' ? 'complete' : 'running')

  const updatedAt = asString(raw.updatedAt)
  const startedAt =
    asString(raw.startedAt) ??
    asString((stagesIn.INIT as Raw | undefined)?.completedAt) ??
    asString(raw.stateEnteredAt) ??
    updatedAt

  const capsIn = isRecord(raw.capabilities) ? raw.capabilities : {}
  const remaining = asArray(capsIn.remaining).filter((c): c is string => typeof c === 'string')
  const current = asString(capsIn.current) ?? null
  const completedIn = capsIn.completed
  // Version 0 kept only a count of completed capabilities; their names are gone.
  const completed = Array.isArray(completedIn)
    ? completedIn.filter((c): c is string => typeof c === 'string')
    : Array.from({ length: Math.max(0, Math.floor(asNumber(completedIn) ?? 0)) }, (_, i) => `capability-${i + 1}`)
  const total = asNumber(capsIn.total) ?? completed.length + remaining.length + (current ? 1 : 0)

  const failuresIn = isRecord(raw.failures) ? raw.failures : {}
  const history = asArray(failuresIn.history)
    .filter(isRecord)
    .map((f) => ({
      iteration: asNumber(f.iteration) ?? 0,
      stage: isStage(f.stage) ? f.stage : stage,
      capability: asString(f.capability) ?? null,
      check: asString(f.check) ?? 'unknown',
      error: String(f.error ?? '').slice(0, 2000),
      pattern: asString(f.pattern) ?? null,
      confidence: null,
      strategy: 'analyze_then_fix',
      signature: asString(f.signature) ?? 'unknown:none:v0',
      tokens: [],
      resolution: f.resolvedAt || f.resolution ? 'resolved' : 'open',
      at: asString(f.at) ?? asString(f.timestamp) ?? updatedAt,
    }))
  const total0 = asNumber(failuresIn.total) ?? asNumber(failuresIn.count) ?? history.length

  const gatesIn = isRecord(raw.gates) ? raw.gates : {}
  const gates: Raw = {}
  for (const [name, value] of Object.entries(gatesIn)) {
    if (!isRecord(value)) continue
    const gateStatus = value.status
    if (gateStatus !== 'pending' && gateStatus !== 'approved' && gateStatus !== 'rejected') continue
    const decidedBy = asString(value.decidedBy) ?? asString(value.approvedBy)
    gates[name] = {
      status: gateStatus,
      reason: asString(value.reason) ?? '',
      requestedAt: asString(value.requestedAt) ?? updatedAt,
      ...(decidedBy ? { decidedBy } : {}),
      ...(asString(value.decidedAt) ? { decidedAt: value.decidedAt } : {}),
    }
  }

  const checkpoints = asArray(raw.checkpoints)
    .filter(isRecord)
    .map((c) => ({
      iteration: asNumber(c.iteration) ?? 0,
      commit: asString(c.commit) ?? asString(c.hash) ?? '',
      message: String(c.message ?? ''),
      at: asString(c.at) ?? updatedAt,
    }))

  const log = asArray(raw.skillsLog)
    .filter(isRecord)
    .map((entry) => ({
      iteration: 0,
      what: asString(entry.skill) ?? 'unknown',
      why: String(entry.reason ?? ''),
      at: asString(entry.startedAt) ?? updatedAt,
      durationMs: Math.max(0, asNumber(entry.durationMs) ?? 0),
      status: String(entry.status ?? 'unknown'),
      outputs: Array.isArray(entry.deliverables) ? { deliverables: entry.deliverables } : {},
    }))
  const wallMs = log.reduce((sum, entry) => sum + entry.durationMs, 0)
  const iteration = Math.max(0, Math.floor(asNumber(raw.iteration) ?? 0))

  return {
    schemaVersion: 1,
    loopId: asString(raw.loopId) ?? asString(raw.systemId),
    iteration,
    stage,
    status,
    statusReason: asString(raw.statusReason) ?? asString(raw.blockedReason) ?? '',
    goal: asString(raw.goal) ?? asString(raw.systemName) ?? '',
    pipeline,
    maxIterations: asNumber(raw.maxIterations) ?? 10,
    startedAt,
    updatedAt,
    stageEnteredAt: asString(raw.stageEnteredAt) ?? asString(raw.stateEnteredAt) ?? updatedAt,
    capabilities: { total, completed, current, remaining },
    stages,
    failures: {
      total: total0,
      consecutive: 0,
      sameError: 0,
      limits: { perFailure: asNumber(failuresIn.maxRetries) ?? 3, sameError: 2, total: 10 },
      current: null,
      tried: [],
      history,
      compacted: 0,
    },
    gates,
    checkpoints,
    tasks: { completed: [], skipped: [] },
    usage: { log, compacted: 0, wallMs, tokens: 0, costUsd: 0 },
    budget: {},
    claimedIteration: iteration,
    metrics: {},
  }
}
