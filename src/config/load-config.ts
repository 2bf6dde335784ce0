/**
 * Loading the loop config, the one way for both front doors (the action and the CLI): a config file
 * (YAML → zod, with messages that name the file, the line, the key, the bad value and what is expected)
 * or simple mode's commands, then a cap set outside the file, then the policy check. Pure except for
 * reading the file, which goes through the `readText` the caller passes.
 */
import { type Document, isMap, isSeq, LineCounter, parseDocument } from 'yaml'
import type { z } from 'zod'
import { AGENT_NAMES } from '../domain/agents/types.js'
import { type CapSettingNames, capNeedsReason } from '../domain/caps.js'
import { planMatrix } from '../domain/matrix-plan.js'
import { type Policy, policyFromConfig } from '../domain/policy.js'
import { MAX_SHARDS, shardConfigProblem } from '../domain/shards.js'
import { ConfigError } from './errors.js'
import { type LoopConfig, type LoopConfigInput, loopConfigSchema, MOVED_CONFIG_KEYS } from './loop-config.js'

/** Where a loop's config may come from, and what the front door calls things in its messages. */
export interface LoopConfigRequest {
  /** The config file: its absolute path, and its name in messages. */
  file: { path: string; name: string }
  /** True when the person named the file; a named file wins over simple mode, the default path does not. */
  fileNamed: boolean
  /** Simple mode's commands when they were given (then no config file is needed). */
  simple: SimpleModeOptions | null
  /** A cap and its reason set outside the config (flags or inputs), over the config's own. */
  cap: { maxIterations?: number | undefined; capReason?: string | undefined; names: CapSettingNames }
  /** An agent preset chosen outside the file (a flag or an input), over the config's `agent`. */
  agent?: { name: LoopConfig['agent']; setting: string }
  /** A goal set outside the file (the action's `goal` input), over the config's. */
  goal?: string
  /** What to say when there is neither a config file nor simple mode. */
  missing: string
}

export interface LoadedConfig {
  config: LoopConfig
  /** The loop's policy, already checked: a bad combination is the user's to fix before anything runs. */
  policy: Policy
  /** The absolute path of the config file used, or null in simple mode. */
  configPath: string | null
  /**
   * The iteration cap a person gave this run (the `--max-iterations` flag or the `max-iterations` input),
   * else undefined. A loop's cap is fixed when it starts (given, else the config's, else 10) and kept in
   * its state: only a given cap changes it later, so a re-dispatch that carries none changes nothing.
   */
  capGiven: number | undefined
  /**
   * The default config file's name when it exists but simple mode won over it (it was not read), for
   * the front door to say so; else null.
   */
  shadowedFile: string | null
}

/**
 * Loads the loop config for a request: the file when there is one (read through `readText`, which
 * answers null for a missing file) unless simple mode was asked for and the file was not named.
 * Throws ConfigError or PolicyError with a message for the person.
 */
export async function loadLoopConfig(
  request: LoopConfigRequest,
  readText: (path: string) => Promise<string | null>,
): Promise<LoadedConfig> {
  // Read even when simple mode wins: a default file it shadows is said, never silently passed over.
  return resolveLoopConfig(request, await readText(request.file.path))
}

/** {@link loadLoopConfig} once the file's text (null: no such file) is at hand. Pure. */
export function resolveLoopConfig(request: LoopConfigRequest, fileText: string | null): LoadedConfig {
  const simpleWins = request.simple !== null && !request.fileNamed
  let config: LoopConfig
  let configPath: string | null = null
  if (fileText !== null && !simpleWins) {
    config = parseLoopConfig(fileText, request.file.name)
    configPath = request.file.path
  } else if (request.simple) {
    config = simpleModeConfig(request.simple)
  } else {
    throw new ConfigError(request.missing)
  }
  if (request.agent && request.agent.name !== config.agent) {
    // The chosen preset builds the work command; a command the file wrote for another agent steps aside.
    const { run: _written, ...work } = config.work
    config = { ...config, agent: request.agent.name, work: request.agent.name === 'command' ? config.work : work }
    const problem = agentConfigProblem(config)
    if (problem) throw new ConfigError(`${request.agent.setting}: ${problem}`)
  }
  if (request.goal) config = { ...config, goal: request.goal }
  const { maxIterations, capReason, names } = request.cap
  if (maxIterations !== undefined || capReason) {
    config = {
      ...config,
      ...(maxIterations !== undefined ? { 'max-iterations': maxIterations } : {}),
      ...(capReason ? { 'cap-reason': capReason } : {}),
    }
    const problem = capNeedsReason(config['max-iterations'], config['cap-reason'], names)
    if (problem) throw new ConfigError(problem)
  }
  const shadowedFile = simpleWins && fileText !== null ? request.file.name : null
  return { config, policy: policyFromConfig(config), configPath, capGiven: maxIterations, shadowedFile }
}

/** Parses and validates a loop config from its YAML text. Throws ConfigError with every problem found. */
export function parseLoopConfig(text: string, fileName: string): LoopConfig {
  const lineCounter = new LineCounter()
  const document = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true })
  if (document.errors.length > 0) {
    const problems = document.errors.map((error) => {
      const position = error.linePos?.[0]
      const where = position ? `${fileName}:${position.line}:${position.col}` : fileName
      const key = error.code === 'DUPLICATE_KEY' && position ? keyOnLine(text, position.line) : null
      return `${where}: invalid YAML: ${error.message.split('\n')[0]}${key ? `: the key '${key}' appears twice` : ''}`
    })
    throw new ConfigError(problems.join('\n'))
  }
  let raw: unknown
  try {
    raw = document.toJS({ maxAliasCount: 100 }) as unknown
  } catch (error) {
    // Unresolved aliases and alias bombs surface only when the document is turned into values.
    throw new ConfigError(`${fileName}: invalid YAML: ${(error as Error).message.split('\n')[0]}`)
  }
  if (raw === null || raw === undefined) {
    throw new ConfigError(`${fileName}: the file is empty; expected a mapping with at least 'work' and 'checks'.`)
  }
  return validateLoopConfig(raw, fileName, (path) => lineOf(document, lineCounter, path))
}

function keyOnLine(text: string, line: number): string | null {
  return /^\s*-?\s*([^:#\s][^:#]*?)\s*:/.exec(text.split('\n')[line - 1] ?? '')?.[1] ?? null
}

/** Validates a config object (from YAML or built from CLI flags). */
export function validateLoopConfig(
  raw: unknown,
  source: string,
  lineOfPath: (path: readonly PropertyKey[]) => number | undefined = () => undefined,
): LoopConfig {
  const result = loopConfigSchema.safeParse(raw)
  if (!result.success) {
    const problems = result.error.issues.flatMap((issue) => describeIssue(issue, raw, source, lineOfPath))
    throw new ConfigError(`Invalid loop config ${source}:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
  }
  const config = result.data
  const problems: string[] = []
  const capProblem = capNeedsReason(config['max-iterations'], config['cap-reason'])
  if (capProblem) problems.push(capProblem)
  const agentProblem = agentConfigProblem(config)
  if (agentProblem) problems.push(agentProblem)
  const names = new Set<string>()
  for (const check of config.checks) {
    if (names.has(check.name))
      problems.push(`checks: the name '${check.name}' is used twice; each check needs its own name.`)
    names.add(check.name)
    const shardProblem = shardConfigProblem(check)
    if (shardProblem) problems.push(shardProblem)
  }
  try {
    planMatrix(config.checks)
  } catch (error) {
    problems.push(`checks: ${(error as Error).message}`)
  }
  if (problems.length > 0) {
    throw new ConfigError(`Invalid loop config ${source}:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
  }
  return config
}

/** A preset builds the work command; `command` needs one written out. */
export function agentConfigProblem(config: LoopConfig): string | null {
  if (config.agent === 'command') {
    return config.work.run === undefined
      ? `work.run: expected the work command (for example 'claude -p ...'), or an agent preset: agent: ${AGENT_NAMES.filter((n) => n !== 'command').join(' | ')}; got nothing`
      : null
  }
  if (config.work.run !== undefined) {
    return `work.run: the agent preset '${config.agent}' builds the work command itself; remove work.run, or set agent: command to run it as written`
  }
  if (config['max-turns'] !== undefined && config.agent !== 'claude') {
    return `max-turns: the '${config.agent}' CLI has no turn limit of its own; remove max-turns (work.timeout limits the call's time)`
  }
  return null
}

function describeIssue(
  issue: z.core.$ZodIssue,
  raw: unknown,
  source: string,
  lineOfPath: (path: readonly PropertyKey[]) => number | undefined,
): string[] {
  const path = issue.path
  const key = formatPath(path)
  const line = lineOfPath(path)
  const where = line ? `line ${line}, ` : ''
  if (issue.code === 'unrecognized_keys') {
    // A key that moved elsewhere gets its own message saying where, not "unknown key".
    const moved = path.length === 0 ? issue.keys.filter((k) => Object.hasOwn(MOVED_CONFIG_KEYS, k)) : []
    const unknown = issue.keys.filter((k) => !moved.includes(k))
    const movedProblems = moved.map((k) => {
      const movedLine = lineOfPath([k])
      return `${movedLine ? `line ${movedLine}, ` : ''}${k}: ${MOVED_CONFIG_KEYS[k]}; got ${JSON.stringify(valueAt(raw, [k]))}`
    })
    if (unknown.length === 0) return movedProblems
    const known = knownKeysAt(path)
    return [
      ...movedProblems,
      `${where}${key || '(top level)'}: unknown key${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `'${k}'`).join(', ')}${known ? `; expected one of ${known}` : ''}`,
    ]
  }
  // A union whose value had the type of one branch (a list of patterns, not a path) failed inside that
  // branch: say the inner problems, at their own keys, rather than "expected string or ...".
  const inner = issue.code === 'invalid_union' ? matchedBranch(issue) : null
  if (inner) return inner.flatMap((i) => describeIssue({ ...i, path: [...path, ...i.path] }, raw, source, lineOfPath))
  const value = valueAt(raw, path)
  const got = value === undefined ? 'nothing' : JSON.stringify(value)
  const shards = shardsKey(path, raw)
  if (shards) return [`${where}${shards}: expected a whole number from 1 to ${MAX_SHARDS} (1: not sharded); got ${got}`]
  return [`${where}${key}: ${expectation(issue)}; got ${got}${source ? '' : ''}`]
}

/** `checks.<name>.shards` for a check's `shards` (named as the domain's sharding rule names it), else null. */
function shardsKey(path: readonly PropertyKey[], raw: unknown): string | null {
  if (path.length !== 3 || path[0] !== 'checks' || typeof path[1] !== 'number' || path[2] !== 'shards') return null
  const name = valueAt(raw, ['checks', path[1], 'name'])
  return typeof name === 'string' && name ? `checks.${name}.shards` : null
}

function expectation(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${issue.expected}`
    case 'too_small':
      return issue.origin === 'array'
        ? `expected at least ${issue.minimum} item(s)`
        : issue.origin === 'string'
          ? 'expected a non-empty string'
          : `expected a number ${issue.inclusive ? '>=' : '>'} ${issue.minimum}`
    case 'too_big':
      return `expected a number ${issue.inclusive ? '<=' : '<'} ${issue.maximum}`
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`
    case 'invalid_union':
      return unionExpectation(issue)
    default:
      return issue.message
  }
}

/** The issues of the union's one branch whose type the value had (each issue deeper than the value), else null. */
function matchedBranch(issue: z.core.$ZodIssueInvalidUnion): z.core.$ZodIssue[] | null {
  const deeper = issue.errors.filter((branch) => branch.length > 0 && branch.every((i) => i.path.length > 0))
  return deeper.length === 1 ? (deeper[0] ?? null) : null
}

function unionExpectation(issue: z.core.$ZodIssueInvalidUnion): string {
  const messages = new Set<string>()
  for (const branch of issue.errors) for (const inner of branch) messages.add(expectation(inner))
  return messages.size > 0
    ? `expected ${[...messages].map((m) => m.replace(/^expected /, '')).join(' or ')}`
    : issue.message
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, part) => {
    if (typeof part === 'number') return `${text}[${part}]`
    return text ? `${text}.${String(part)}` : String(part)
  }, '')
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = raw
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<PropertyKey, unknown>)[part as string]
  }
  return current
}

function knownKeysAt(path: readonly PropertyKey[]): string | undefined {
  let schema: z.ZodType = loopConfigSchema
  for (const part of path) {
    const next = childSchema(schema, part)
    if (!next) return undefined
    schema = next
  }
  const shape = objectShape(schema)
  return shape ? Object.keys(shape).join(', ') : undefined
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current: z.ZodType = schema
  for (let i = 0; i < 10; i++) {
    const def = (current as unknown as { def: { type: string; innerType?: z.ZodType; in?: z.ZodType } }).def
    if ((def.type === 'default' || def.type === 'optional' || def.type === 'prefault') && def.innerType)
      current = def.innerType
    else if (def.type === 'pipe' && def.in) current = def.in
    else break
  }
  return current
}

function objectShape(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  const inner = unwrap(schema) as unknown as { def: { type: string; shape?: Record<string, z.ZodType> } }
  return inner.def.type === 'object' ? inner.def.shape : undefined
}

function childSchema(schema: z.ZodType, part: PropertyKey): z.ZodType | undefined {
  const inner = unwrap(schema) as unknown as {
    def: { type: string; shape?: Record<string, z.ZodType>; element?: z.ZodType; options?: z.ZodType[] }
  }
  if (inner.def.type === 'object') return inner.def.shape?.[String(part)]
  if (inner.def.type === 'array') return inner.def.element
  if (inner.def.type === 'union') {
    for (const option of inner.def.options ?? []) {
      const child = childSchema(option, part)
      if (child) return child
    }
  }
  return undefined
}

function lineOf(document: Document, lineCounter: LineCounter, path: readonly PropertyKey[]): number | undefined {
  // The issue may point below the last node that exists (a missing key): walk up to the nearest one.
  for (let depth = path.length; depth >= 0; depth--) {
    const node = document.getIn(path.slice(0, depth) as (string | number)[], true) as
      | { range?: [number, number, number] }
      | undefined
    const start = node && (isMap(node) || isSeq(node) || 'range' in node) ? node.range?.[0] : undefined
    if (start !== undefined) return lineCounter.linePos(start).line
  }
  return undefined
}

/** Options of the simple mode (no config file): `--work CMD --verify CMD... --max-iterations N`. */
export interface SimpleModeOptions {
  /** The work command, or an agent preset's name (then `work` is absent). */
  work?: string
  agent?: LoopConfig['agent']
  verify: string[]
  maxIterations?: number
  capReason?: string
  goal?: string
}

/** Builds a config for the simple mode; each `--verify` command becomes a required check. */
export function simpleModeConfig(options: SimpleModeOptions): LoopConfig {
  const input: LoopConfigInput = {
    ...(options.goal ? { goal: options.goal } : {}),
    ...(options.work !== undefined ? { work: { run: options.work } } : {}),
    ...(options.agent !== undefined ? { agent: options.agent } : {}),
    checks: options.verify.map((run, index) => ({ name: `verify-${index + 1}`, run, kind: guessKind(run) })),
    ...(options.maxIterations !== undefined ? { 'max-iterations': options.maxIterations } : {}),
    ...(options.capReason ? { 'cap-reason': options.capReason } : {}),
  }
  return validateLoopConfig(input, '(from the command line)', () => undefined)
}

/** A guess at a simple-mode check's kind from its command, so analysis gets the right prior. */
export function guessKind(command: string): LoopConfig['checks'][number]['kind'] {
  const text = command.toLowerCase()
  if (/\b(tsc|mypy|pyright|typecheck|type-check)\b/.test(text)) return 'typecheck'
  if (/\b(eslint|ruff|flake8|clippy|lint|shellcheck)\b/.test(text) && !/format/.test(text)) return 'lint'
  if (/\b(prettier|black|rustfmt|gofmt|format)\b/.test(text)) return 'format'
  if (/\b(test|jest|vitest|mocha|pytest|spec)\b/.test(text)) return 'test'
  if (/\b(build|compile|make|cargo build|go build|javac|mvn)\b/.test(text)) return 'build'
  if (/\b(audit|gitleaks|trufflehog|semgrep)\b/.test(text)) return 'security'
  return 'custom'
}
