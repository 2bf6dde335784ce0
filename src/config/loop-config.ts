/**
 * The loop config (`.github/loop.yml`): one zod schema, strict keys. The JSON Schema in
 * `schema/loop-config.schema.json` is generated from this same schema (`npm run schema`).
 */
import { z } from 'zod'
import { AGENT_NAMES, agentNameKey } from '../domain/agents/types.js'
import type { PatternConfig } from '../domain/analysis/pattern-config.js'
import { DEFAULT_MAX_FILE_BYTES } from '../domain/commit-policy.js'
import type { CheckConfig, Command, LoopConfig } from '../domain/loop-config.js'
import { MatrixPlanError, type PlannedCheck, planMatrix } from '../domain/matrix-plan.js'
import { MAX_SHARDS } from '../domain/shards.js'
import { CHECK_KINDS, STAGES, STRATEGIES } from '../domain/stages.js'

export type { PatternConfig } from '../domain/analysis/pattern-config.js'
export type { CheckConfig, Command, LoopConfig } from '../domain/loop-config.js'

/** Seconds as a number, or a duration string such as `90s`, `5m`, `1h`. Parsed to seconds. */
export const durationSeconds = z
  .union([z.number().positive(), z.string().regex(/^\d+(\.\d+)?\s*(ms|s|m|h)$/, 'a duration such as 30s, 5m or 1h')])
  .transform((value) => {
    if (typeof value === 'number') return value
    const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)$/.exec(value)
    const amount = Number(match?.[1])
    const unit = match?.[2]
    return unit === 'ms' ? amount / 1000 : unit === 'm' ? amount * 60 : unit === 'h' ? amount * 3600 : amount
  })

/** A command from the config: a shell line (trusted, it comes from the config) or an argv array. */
export const commandSchema = z.union([
  z.string().trim().min(1, 'a command must not be empty'),
  z.array(z.string()).min(1, 'a command must not be empty'),
])

const envNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
const envSchema = z.record(envNameSchema, z.string())

export const checkSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, dot, dash and underscore'),
  run: commandSchema,
  kind: z.enum(CHECK_KINDS).default('custom'),
  needs: z.array(z.string()).default([]),
  timeout: durationSeconds.default(600),
  fix: commandSchema.optional(),
  required: z.boolean().default(true),
  junit: z.string().min(1).optional(),
  pre: z.boolean().default(false),
  'verify-only': z.boolean().default(false),
  env: envSchema.default({}),
  /** Shards run side by side: `{shard}`/`{shards}` in run and junit, LOOP_SHARD/LOOP_SHARDS in the environment. */
  shards: z.number().int().min(1).max(MAX_SHARDS).optional(),
})

const signalSchema = z.string().min(1)

/** A failure pattern as users write it. Users add patterns or override a default by `id`. */
export const patternSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and dashes'),
  description: z.string().optional(),
  signals: z.array(signalSchema).min(1),
  anchors: z.array(signalSchema).default([]),
  kinds: z.array(z.enum(CHECK_KINDS)).default([]),
  strategy: z.enum(STRATEGIES),
  alternates: z.array(z.enum(STRATEGIES)).default([]),
  max_auto_retries: z.number().int().min(0).max(20).optional(),
  retryable: z.boolean().default(true),
  locations: z.array(z.string().min(1)).default([]),
  excerpt: z.array(signalSchema).optional(),
  hint: z.string().optional(),
  outranks: z.array(z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'pattern ids')).optional(),
})

export const gateSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and dashes'),
  paths: z.array(z.string()).default([]),
  'at-stage': z.enum(STAGES).optional(),
  approvers: z.array(z.string()).default([]),
  required: z.boolean().default(true),
})

const stageSettingsSchema = z.strictObject({
  'required-checks': z.array(z.string()).optional(),
  tasks: z
    .array(z.strictObject({ name: z.string().min(1), run: commandSchema, timeout: durationSeconds.default(600) }))
    .default([]),
  prompt: z.string().optional(),
})

/**
 * A preset, or the stages in order. A list naming an unknown stage is refused at that entry
 * (`pipeline[1]`, its line and value), not as the whole list failing both forms.
 */
export const pipelineSchema = z.preprocess(
  (value, context) => {
    if (!Array.isArray(value)) return value
    value.forEach((stage, index) => {
      if (typeof stage === 'string' && (STAGES as readonly string[]).includes(stage)) return
      context.addIssue({ code: 'invalid_value', values: [...STAGES], input: stage, path: [index] })
    })
    return value
  },
  z
    .union([
      z.enum(['iterate', 'full']),
      z
        .array(z.enum(STAGES))
        .min(1)
        .refine((stages) => new Set(stages).size === stages.length, 'each stage at most once')
        .refine(
          (stages) => stages.every((s, i) => i === 0 || STAGES.indexOf(stages[i - 1] as never) < STAGES.indexOf(s)),
          'stages in the order INIT, SCAFFOLD, IMPLEMENT, TEST, VERIFY, VALIDATE, DOCUMENT, REVIEW, SHIP, COMPLETE',
        ),
    ])
    // The default inside the check of its entries, so the JSON Schema keeps it.
    .default('iterate'),
)

/**
 * The checks' `needs` graph must plan (unique names, known needs, no cycle): said once, at the check
 * and key at fault, so the message names its line (the loader reports a schema problem with its line).
 */
function checksPlanProblem(checks: readonly PlannedCheck[], context: z.RefinementCtx): void {
  try {
    planMatrix(checks)
  } catch (error) {
    if (!(error instanceof MatrixPlanError)) throw error
    const { index, key } = error.at
    context.addIssue({ code: 'custom', message: error.problem, path: [index, key], input: checks[index]?.[key] })
  }
}

export const loopConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  version: z.literal(1).default(1),
  // Absent: the issue or pull request the loop starts from gives it, else DEFAULT_GOAL.
  goal: z.string().min(1).optional(),
  pipeline: pipelineSchema,
  'max-iterations': z.number().int().min(1).max(1000).default(10),
  'cap-reason': z.string().min(1).optional(),
  budget: z
    .strictObject({
      minutes: z.number().positive().optional(),
      tokens: z.number().int().positive().optional(),
      'cost-usd': z.number().positive().optional(),
    })
    .default({}),
  // In any case, as the reusable workflow's `if:` reads its `agent`; the editors' schema lists the names as written.
  agent: z
    .string()
    .meta({ enum: [...AGENT_NAMES], default: 'command' })
    .transform(agentNameKey)
    .pipe(z.enum(AGENT_NAMES))
    .default('command'),
  'agent-args': z.array(z.string()).default([]),
  model: z.string().min(1).optional(),
  'max-turns': z.number().int().min(1).max(1000).optional(),
  work: z
    .strictObject({
      run: commandSchema.optional(),
      timeout: durationSeconds.default(1800),
      env: envSchema.default({}),
      /** Names of environment variables from the controller's environment to hand to commands. */
      'pass-env': z.array(envNameSchema).default([]),
      /** Names handed to the work command (the agent) alone, never to checks, fixes or install. */
      secrets: z.array(envNameSchema).default([]),
    })
    .default({ timeout: 1800, env: {}, 'pass-env': [], secrets: [] }),
  checks: z.array(checkSchema).min(1, 'at least one check').superRefine(checksPlanProblem),
  matrix: z
    .strictObject({
      'max-parallel': z.number().int().min(1).max(64).optional(),
      'fail-fast': z.boolean().default(false),
    })
    .default({ 'fail-fast': false }),
  retry: z
    .strictObject({
      'per-failure': z.number().int().min(0).max(20).default(3),
      'same-error': z.number().int().min(0).max(20).default(2),
      total: z.number().int().min(1).max(100).default(10),
      'backoff-seconds': z.number().min(0).max(600).default(5),
    })
    .default({ 'per-failure': 3, 'same-error': 2, total: 10, 'backoff-seconds': 5 }),
  'flake-check': z
    .strictObject({ enabled: z.boolean().default(true), reruns: z.number().int().min(0).max(3).default(1) })
    .default({ enabled: true, reruns: 1 }),
  install: commandSchema.optional(),
  /** Fan-out: what each verify leg runs on its fresh runner before its check (absent: `install`, if set). */
  'verify-setup': commandSchema.optional(),
  complexity: z.enum(['low', 'medium', 'high']).default('medium'),
  regression: z.enum(['auto', 'on', 'off']).default('auto'),
  capabilities: z
    .array(
      z.union([z.string().min(1), z.strictObject({ name: z.string().min(1), description: z.string().optional() })]),
    )
    .default([]),
  stages: z.partialRecord(z.enum(STAGES), stageSettingsSchema).default({}),
  gates: z.array(gateSchema).default([]),
  protect: z
    .strictObject({
      paths: z.array(z.string()).default([]),
      'on-change': z.enum(['gate', 'fail']).default('gate'),
      'test-files': z.array(z.string()).default([]),
    })
    .default({ paths: [], 'on-change': 'gate', 'test-files': [] }),
  patterns: z.union([z.string().min(1), z.array(patternSchema)]).optional(),
  stop: z.boolean().default(false),
  commit: z
    .strictObject({
      enabled: z.boolean().default(true),
      'message-prefix': z.string().default('loop'),
      'max-file-bytes': z.number().int().min(1, 'a size in bytes, at least 1').default(DEFAULT_MAX_FILE_BYTES),
      'allow-paths': z.array(z.string().min(1, 'a glob such as config/*.pem')).default([]),
      'allow-workflows': z.boolean().default(false),
    })
    .default({
      enabled: true,
      'message-prefix': 'loop',
      'max-file-bytes': DEFAULT_MAX_FILE_BYTES,
      'allow-paths': [],
      'allow-workflows': false,
    }),
  // Issue numbers: `[12, 15]`, or quoted `['#12', '#15']` (a bare # starts a YAML comment).
  'depends-on': z
    .array(
      z.union([z.number().int().positive(), z.string().regex(/^#[1-9][0-9]*$/, "an issue number such as 12 or '#12'")]),
    )
    .max(10, 'at most 10 issues')
    .optional(),
})

/**
 * Keys the loop config no longer takes, with where they went. `allow-untrusted` decides whether a
 * fork's code may run with this repository's secrets, and under `pull_request_target` the checked-out
 * config can be the fork's own: only the workflow file (the action's input) may say it.
 */
export const MOVED_CONFIG_KEYS: Readonly<Record<string, string>> = {
  'allow-untrusted':
    "no longer read from the loop config, which a pull request from a fork can change; it moved to the action input 'allow-untrusted' (set 'allow-untrusted: true' under the action's 'with:' in the workflow file). Remove it from the loop config",
}

export type LoopConfigInput = z.input<typeof loopConfigSchema>

/** True when A and B are assignable both ways. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
type Holds<T extends true> = T
/** Compile-time proof that the schemas parse into exactly the domain's types, so the two cannot drift. */
export type _SchemasMatchDomainTypes = [
  Holds<Same<z.output<typeof commandSchema>, Command>>,
  Holds<Same<z.output<typeof checkSchema>, CheckConfig>>,
  Holds<Same<z.output<typeof patternSchema>, PatternConfig>>,
  Holds<Same<z.output<typeof loopConfigSchema>, LoopConfig>>,
]
