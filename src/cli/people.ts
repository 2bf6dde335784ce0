/** The people's commands on this machine: `resume`, `abort`, `approve GATE`, `skip TASK --reason "why"`. */
import { applyPeopleCommand, type PeopleCommand } from '../app/people-commands.js'
import { simpleModeConfig } from '../config/load-config.js'
import { capNeedsReason } from '../domain/caps.js'
import { CappedResumeError, initialState } from '../domain/engine/index.js'
import { policyFromConfig } from '../domain/policy.js'
import { systemClock } from '../ports/clock.js'
import { FLAG_CAP_NAMES, loadCliConfig } from './config.js'
import { EXIT, UsageError } from './exit-codes.js'
import type { CliIo } from './io.js'
import type { LoopPlace } from './loop-place.js'
import { expectPositionals, parseCap, type Values } from './options.js'
import { renderStatus } from './render.js'

/** Applies the command to the loop's state, recorded as by the local user, and prints the new status. */
export async function runPeopleCommand(
  command: 'resume' | 'abort' | 'approve' | 'skip',
  positionals: string[],
  place: LoopPlace,
  values: Values,
  io: CliIo,
): Promise<number> {
  let people: PeopleCommand
  if (command === 'approve') {
    expectPositionals(command, positionals, 1, 'one gate name, e.g. approve security')
    people = { kind: 'approve', gate: positionals[0] as string }
  } else if (command === 'skip') {
    expectPositionals(command, positionals, 1, 'one task name and --reason "why"')
    if (!values.reason?.trim())
      throw new UsageError(`'skip ${positionals[0]}' needs --reason "why it is skipped"; the reason is recorded.`)
    people = { kind: 'skip', task: positionals[0] as string, reason: values.reason.trim() }
  } else if (command === 'abort') {
    expectPositionals(command, positionals, 0, 'no arguments (and --reason "why", recorded)')
    people = { kind: 'abort', ...(values.reason?.trim() ? { reason: values.reason.trim() } : {}) }
  } else {
    expectPositionals(command, positionals, 0, 'no arguments')
    people = { kind: command }
  }
  const by = io.env.USER ?? io.env.USERNAME ?? 'cli'
  const { store, audit, loopId, root } = place
  const loaded = await loadCliConfig(root, values, io).catch(() => null)
  const policy = loaded?.policy ?? null
  if (people.kind === 'resume') {
    // A cap given with the resume is applied first, so it can lift the cap that capped the loop; above
    // the limit it needs its reason, as on `run` (the config's problems, if any, do not excuse it).
    const cap = values['max-iterations'] !== undefined ? parseCap(values['max-iterations']) : undefined
    const capReason = values['cap-reason']?.trim() || undefined
    const problem = cap === undefined ? undefined : capNeedsReason(cap, capReason, FLAG_CAP_NAMES)
    if (problem) throw new UsageError(problem)
    people = { kind: 'resume', cap, capReason, budget: policy?.budget }
  }
  // An abort may come before the loop's first save: it is recorded as a loop that starts aborted.
  const fresh = (now: Date) =>
    initialState({
      loopId,
      goal: loaded?.config.goal,
      // No config at hand: the loop is recorded with the simple mode's defaults; it never runs anyway.
      policy: policy ?? policyFromConfig(simpleModeConfig({ work: 'true', verify: ['true'] })),
      now,
    })
  const state = await applyPeopleCommand(people, { loopId, by, fresh }, { store, clock: systemClock, audit }).catch(
    (error: unknown) => {
      if (error instanceof CappedResumeError && error.limit === 'iterations') {
        throw new UsageError(`${error.message} Here: loop-controller resume --max-iterations N.`)
      }
      throw error
    },
  )
  io.stdout(renderStatus(state, policy))
  return EXIT.complete
}
