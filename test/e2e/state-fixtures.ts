// What a scenario's loops left on the state branch of the remote (`loop-state`): each loop's saved state,
// and queue.json (the slots and the line of `max-loops` and `depends-on`) now and in every version.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { parseSlotsRecord, type SlotsRecord } from '../../src/domain/slots.js'
import type { LoopState } from '../../src/domain/state.js'
import type { Scenario } from './fixtures.js'

const STATE_BRANCH = 'loop-state'

type WithSandbox = Pick<Scenario, 'sandbox'>

/** The loop's state as its last job saved it (or as it was at `ref`), or undefined when none was saved. */
export async function savedStateIfAny(
  s: WithSandbox,
  loopId: string,
  ref = STATE_BRANCH,
): Promise<LoopState | undefined> {
  const text = await s.sandbox.git.show(ref, `${loopId}/loop-state.json`)
  return text === undefined ? undefined : (JSON.parse(text) as LoopState)
}

/** The loop's state as its last job saved it; throws when none was saved. */
export async function savedState(s: WithSandbox, loopId: string): Promise<LoopState> {
  const state = await savedStateIfAny(s, loopId)
  if (!state) throw new Error(`no state of loop ${loopId} on the ${STATE_BRANCH} branch`)
  return state
}

function parsedQueue(text: string, where: string): SlotsRecord {
  const parsed = parseSlotsRecord(text)
  if ('problem' in parsed) throw new Error(`${where}: ${parsed.problem}`)
  return parsed.record
}

/** queue.json at the tip of the state branch. */
export async function queueNow(s: WithSandbox): Promise<SlotsRecord> {
  return parsedQueue((await s.sandbox.git.show(STATE_BRANCH, 'queue.json')) ?? '', 'queue.json')
}

/** Every version of queue.json on the state branch, oldest first, with the commit that wrote it. */
export async function queueHistory(s: WithSandbox): Promise<Array<{ commit: string; record: SlotsRecord }>> {
  const git = async (...args: string[]) =>
    (await promisify(execFile)('git', ['--git-dir', s.sandbox.git.bareDir, ...args])).stdout
  const commits = (await git('log', '--reverse', '--format=%H', STATE_BRANCH, '--', 'queue.json')).split('\n')
  const versions: Array<{ commit: string; record: SlotsRecord }> = []
  for (const commit of commits.filter(Boolean)) {
    versions.push({ commit, record: parsedQueue(await git('show', `${commit}:queue.json`), `queue.json at ${commit}`) })
  }
  return versions
}
