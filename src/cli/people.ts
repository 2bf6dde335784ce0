/** The people's commands on this machine: `resume`, `abort`, `approve GATE`, `skip TASK --reason "why"`. */
import { applyPeopleCommand, type PeopleCommand } from '../app/people-commands.js'
import { systemClock } from '../ports/clock.js'
import { policyIfConfigured } from './config.js'
import { EXIT, UsageError } from './exit-codes.js'
import type { CliIo } from './io.js'
import type { LoopPlace } from './loop-place.js'
import { expectPositionals, type Values } from './options.js'
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
  } else {
    expectPositionals(command, positionals, 0, 'no arguments')
    people = { kind: command }
  }
  const by = io.env.USER ?? io.env.USERNAME ?? 'cli'
  const { store, audit, loopId, root } = place
  const state = await applyPeopleCommand(people, { loopId, by }, { store, clock: systemClock, audit })
  io.stdout(renderStatus(state, await policyIfConfigured(root, values, io)))
  return EXIT.complete
}
