/**
 * The loop config (`.github/loop.yml`) as the domain reads it: plain types, with every default
 * filled in. The config layer parses and validates the YAML into exactly these types (its zod schemas
 * are checked against them at compile time), so the domain never depends on how the file is parsed.
 */
import type { AgentName } from './agents/types.js'
import type { PatternConfig } from './analysis/pattern-config.js'
import type { CheckKind, Stage } from './stages.js'

/** A command from the config: a shell line (trusted, it comes from the config) or an argv array. */
export type Command = string | string[]

/** One check of the verification matrix. `timeout` is in seconds. */
export interface CheckConfig {
  name: string
  run: Command
  kind: CheckKind
  needs: string[]
  timeout: number
  fix?: Command | undefined
  required: boolean
  junit?: string | undefined
  pre: boolean
  /** Runs only when the work reaches VERIFY (a slow suite): left out of the baseline and other iterations. */
  'verify-only': boolean
  env: Record<string, string>
  /** Run as this many shards side by side (1..64; absent or 1: not sharded), merged into one result (`shards.ts`). */
  shards?: number | undefined
}

/** A gate: a person approves before the loop goes on (on changed paths, or on leaving a stage). */
export interface GateConfig {
  name: string
  paths: string[]
  'at-stage'?: Stage | undefined
  approvers: string[]
  required: boolean
}

/** A stage's own settings: the checks that must pass to leave it, its tasks, its prompt. */
export interface StageSettings {
  'required-checks'?: string[] | undefined
  tasks: { name: string; run: Command; timeout: number }[]
  prompt?: string | undefined
}

/** A preset name, or the stages in pipeline order (each at most once). */
export type PipelineConfig = 'iterate' | 'full' | Stage[]

/** A capability of the `full` pipeline: a name, or a name with a description. */
export type CapabilityConfig = string | { name: string; description?: string | undefined }

/** The goal of a loop that is given none and starts from no issue or pull request. */
export const DEFAULT_GOAL = 'Make every check in the verification matrix pass.'

export interface LoopConfig {
  $schema?: string | undefined
  version: 1
  /** The loop's goal; absent, the task it starts from (an issue) gives it, else `DEFAULT_GOAL`. */
  goal?: string | undefined
  pipeline: PipelineConfig
  'max-iterations': number
  'cap-reason'?: string | undefined
  budget: { minutes?: number | undefined; tokens?: number | undefined; 'cost-usd'?: number | undefined }
  /** The agent preset that builds the work command, or `command` for `work.run` as written. */
  agent: AgentName
  /** Extra arguments for the preset's CLI. */
  'agent-args': string[]
  /** The model the preset asks its CLI for (the CLI's default when absent). */
  model?: string | undefined
  /** The preset CLI's own turn limit per call, where it has one. */
  'max-turns'?: number | undefined
  work: {
    /** The work command; required with `agent: command`, absent with a preset. */
    run?: Command | undefined
    timeout: number
    env: Record<string, string>
    /** Names of environment variables from the controller's environment to hand to commands. */
    'pass-env': string[]
    /** Names of environment variables handed to the work command (the agent) alone, never to checks. */
    secrets: string[]
  }
  checks: CheckConfig[]
  matrix: { 'max-parallel'?: number | undefined; 'fail-fast': boolean }
  retry: { 'per-failure': number; 'same-error': number; total: number; 'backoff-seconds': number }
  'flake-check': { enabled: boolean; reruns: number }
  install?: Command | undefined
  /** Fan-out: what each verify leg runs on its fresh runner before its check (absent: `install`, if set). */
  'verify-setup'?: Command | undefined
  complexity: 'low' | 'medium' | 'high'
  regression: 'auto' | 'on' | 'off'
  capabilities: CapabilityConfig[]
  stages: Partial<Record<Stage, StageSettings>>
  gates: GateConfig[]
  protect: { paths: string[]; 'on-change': 'gate' | 'fail'; 'test-files': string[] }
  /** A pattern file's path (read by the config layer), or the patterns inline. */
  patterns?: string | PatternConfig[] | undefined
  stop: boolean
  commit: {
    enabled: boolean
    'message-prefix': string
    /** A checkpoint leaves out any file larger than this. */
    'max-file-bytes': number
    /** Globs the checkpoint commits even when ignored before the work, large or credential-shaped. */
    'allow-paths': string[]
    /** Whether changes under `.github/workflows/` are committed (they need a push-token with the workflow scope). */
    'allow-workflows': boolean
  }
  /** Issues whose loops must be COMPLETE before this loop starts (`12` or `'#12'`), at most ten. */
  'depends-on'?: Array<number | string> | undefined
}
