/** The CLI's options, and the checks of the values that are more than a string. */
import type { parseArgs } from 'node:util'
import { AGENT_NAMES } from '../domain/agents/types.js'
import { ISOLATION_MODES } from '../domain/isolation.js'
import { isStateBranchName, STATE_BRANCH_RULE } from '../domain/loop-names.js'
import { UsageError } from './exit-codes.js'
import type { CommandName } from './help.js'

export const OPTIONS = {
  config: { type: 'string' },
  work: { type: 'string' },
  agent: { type: 'string' },
  isolation: { type: 'string' },
  verify: { type: 'string', multiple: true },
  'max-iterations': { type: 'string' },
  'cap-reason': { type: 'string' },
  'loop-id': { type: 'string' },
  'state-dir': { type: 'string' },
  'no-commit': { type: 'boolean' },
  reason: { type: 'string' },
  json: { type: 'boolean' },
  force: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  all: { type: 'boolean' },
  from: { type: 'string' },
  remote: { type: 'string' },
  'state-branch': { type: 'string' },
  'max-loops': { type: 'string' },
} as const

export type Values = ReturnType<
  typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>
>['values']

export type OptionName = keyof typeof OPTIONS

/** The options of `run` and `next`: where the loop's config comes from, the cap, isolation, commits. */
const ITERATION_OPTIONS: readonly OptionName[] = [
  'config',
  'work',
  'agent',
  'isolation',
  'verify',
  'max-iterations',
  'cap-reason',
  'loop-id',
  'state-dir',
  'no-commit',
]
/** What a person's command on a loop reads: which loop, where its state is, its config (for the status shown). */
const PEOPLE_OPTIONS: readonly OptionName[] = ['config', 'loop-id', 'state-dir']

/** The options each command reads (`--help` aside); any other one given is refused, not ignored. */
export const COMMAND_OPTIONS: Record<Exclude<CommandName, 'analyze'>, readonly OptionName[]> = {
  init: ['work', 'agent', 'verify', 'force'],
  run: ITERATION_OPTIONS,
  next: ITERATION_OPTIONS,
  status: ['config', 'loop-id', 'state-dir', 'json', 'all', 'remote', 'state-branch', 'max-loops'],
  history: ['loop-id', 'state-dir', 'json'],
  // A raised cap comes with resuming a loop that reached its cap.
  resume: [...PEOPLE_OPTIONS, 'max-iterations', 'cap-reason'],
  skip: [...PEOPLE_OPTIONS, 'reason'],
  approve: PEOPLE_OPTIONS,
  abort: [...PEOPLE_OPTIONS, 'reason'],
  patterns: ['config', 'state-dir', 'all', 'from'],
}

function takenOptions(command: Exclude<CommandName, 'analyze'>): string {
  const taken = COMMAND_OPTIONS[command]
  return taken.length > 0 ? taken.map((option) => `--${option}`).join(', ') : 'no options'
}

/** Refuses an option the command does not read (it would be silently ignored), naming both. */
export function checkCommandOptions(command: Exclude<CommandName, 'analyze'>, values: Values): void {
  for (const [option, value] of Object.entries(values)) {
    if (value === undefined || option === 'help') continue
    if ((COMMAND_OPTIONS[command] as readonly string[]).includes(option)) continue
    throw new UsageError(
      `'${command}' does not take --${option}; it takes ${takenOptions(command)} (see 'loop-controller ${command} --help').`,
    )
  }
}

/** An option no command has, said with the ones the command takes (not only Node's parser's words). */
export function unknownOptionError(command: Exclude<CommandName, 'analyze'>, error: unknown): unknown {
  if ((error as { code?: string }).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return error
  const option = /Unknown option '([^']+)'/.exec((error as Error).message)?.[1]
  if (!option) return error
  return new UsageError(
    `'${command}' has no option ${option}; it takes ${takenOptions(command)} (see 'loop-controller ${command} --help').`,
  )
}

/** The options that take a number: a negative one is a bad value, not an option to Node's parser. */
const NUMBER_OPTIONS = ['--max-iterations', '--max-loops']

/**
 * `--max-iterations -3` as `--max-iterations=-3`: Node's parser reads `-3` as an option and says the
 * argument is ambiguous; joined, the value reaches its check, whose message names the range.
 */
export function joinNegativeNumbers(args: readonly string[]): string[] {
  const joined: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string
    const next = args[i + 1]
    if (NUMBER_OPTIONS.includes(arg) && next !== undefined && /^-[\d.]/.test(next)) {
      joined.push(`${arg}=${next}`)
      i++
    } else joined.push(arg)
  }
  return joined
}

/** What each option that takes text expects, said when it is given empty. */
const NON_EMPTY: Partial<Record<OptionName, string>> = {
  config: 'the loop config file (default .github/loop.yml)',
  work: "the work command (e.g. --work 'npm run fix'), or --agent NAME for a preset",
  verify: "a verify command (e.g. --verify 'npm test')",
  agent: `one of ${AGENT_NAMES.join(', ')}`,
  isolation: `one of ${ISOLATION_MODES.join(', ')}`,
  'loop-id': "a loop's id (without --loop-id: from the current branch)",
  'state-dir': 'a directory (without --state-dir: .loop at the repository root)',
  reason: 'why, in words (it is recorded)',
  'cap-reason': 'why the cap is that high, in words (it is recorded)',
  from: "a dead letter's path or signature",
}

/** Refuses an option given empty (`--work ''`), which would otherwise read as not given at all. */
export function checkEmptyValues(values: Values): void {
  for (const [option, expected] of Object.entries(NON_EMPTY) as [OptionName, string][]) {
    const value = values[option]
    const given = Array.isArray(value) ? value : typeof value === 'string' ? [value] : []
    if (given.some((text) => text.trim() === '')) {
      throw new UsageError(`--${option} is empty; expected ${expected}.`)
    }
  }
}

export function parseCap(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1 || Number(value) > 1000) {
    throw new UsageError(`--max-iterations must be a whole number from 1 to 1000; got '${value}'.`)
  }
  return Number(value)
}

export function validLoopId(value: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(value)) {
    throw new UsageError(
      `--loop-id must be 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or digit; got '${value}'.`,
    )
  }
  return value
}

/** Refuses a command called with the wrong number of arguments, saying what it takes. */
export function expectPositionals(command: string, positionals: string[], count: number, what: string): void {
  if (positionals.length !== count) {
    throw new UsageError(
      `'${command}' takes ${what}; got ${positionals.length ? positionals.map((p) => `'${p}'`).join(' ') : 'nothing'}.`,
    )
  }
}

/** A branch name the `git` store can use (as the action's `state-branch` input takes it). */
export function validStateBranch(value: string): string {
  if (!isStateBranchName(value)) {
    throw new UsageError(`--state-branch must be a plain branch name (${STATE_BRANCH_RULE}); got '${value}'.`)
  }
  return value
}

/** `--max-loops`: the limit the workflow gives the loops (`max-loops`), for the places in line. */
export function parseMaxLoops(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1 || Number(value) > 1000) {
    throw new UsageError(
      `--max-loops must be a whole number from 1 to 1000 (the workflow's max-loops); got '${value}'.`,
    )
  }
  return Number(value)
}

/** What each option only `status --all --remote` reads needs, said when it is given anywhere else. */
const REMOTE_LISTING = {
  remote: `'status --all --remote NAME' lists the loops on that remote's state branch`,
  'state-branch': `'status --all --remote NAME --state-branch B' reads that branch of the remote`,
  'max-loops': `'status --all --remote NAME --max-loops N' says the places in line under that limit`,
} as const

/**
 * Refuses options `status` or `history` would otherwise ignore, naming the option and what it needs:
 * `--remote` belongs to the listing of every loop (`status --all`), `--state-branch` and `--max-loops`
 * to the listing of a remote's loops (`status --all --remote`);
 * `--loop-id` names one loop, which `--all` does not show.
 */
export function checkShowOptions(command: 'status' | 'history', values: Values): void {
  const listsAll = command === 'status' && values.all === true
  if (command === 'history' && values.all) {
    throw new UsageError(`--all is read by 'status' only; 'history' shows one loop (--loop-id ID, or the default one).`)
  }
  if (listsAll && values['loop-id'] !== undefined) {
    throw new UsageError(
      `--loop-id names one loop, and --all lists every loop: give one of them ('status --loop-id ${values['loop-id']}' or 'status --all').`,
    )
  }
  if (listsAll && values.remote !== undefined) return
  for (const option of Object.keys(REMOTE_LISTING) as (keyof typeof REMOTE_LISTING)[]) {
    if (values[option] === undefined) continue
    // `status --all` without --remote says what --state-branch needs in words of its own.
    if (listsAll && option === 'state-branch') continue
    const needs = option === 'remote' ? '--all' : '--all --remote'
    throw new UsageError(`--${option} is read only with ${needs}: ${REMOTE_LISTING[option]}.`)
  }
}
