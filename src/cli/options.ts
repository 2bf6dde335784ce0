/** The CLI's options, and the checks of the values that are more than a string. */
import type { parseArgs } from 'node:util'
import { isStateBranchName, STATE_BRANCH_RULE } from '../domain/loop-names.js'
import { UsageError } from './exit-codes.js'

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
  kind: { type: 'string' },
  patterns: { type: 'string' },
  version: { type: 'boolean' },
  all: { type: 'boolean' },
  from: { type: 'string' },
  remote: { type: 'string' },
  'state-branch': { type: 'string' },
  'max-loops': { type: 'string' },
} as const

export type Values = ReturnType<
  typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>
>['values']

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
