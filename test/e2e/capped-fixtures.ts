// What the e2e tests of a capped loop re-opened by a higher cap under `max-loops: 1` check at the end,
// in the single job and in fan-out alike: loop `a`, capped at 2 and given a cap of 5 while loop `b` held
// the one slot, waited in line and ran to COMPLETE under the saved cap once `b` gave the slot back.
import { expect } from 'vitest'
import type { Scenario } from './fixtures.js'
import { journeyOf } from './many-loops-fixtures.js'
import { queueHistory, savedState } from './state-fixtures.js'

/** The loops a slots record names as running and as queued, by id. */
export const loopsOf = (record: { running: { loopId: string }[]; queued: { loopId: string }[] }) => ({
  running: record.running.map((holder) => holder.loopId),
  queued: record.queued.map((waiting) => waiting.loopId),
})

/** `a` and `b` COMPLETE, `a` under the cap of 5; never two loops holding the slot; `a` re-opened, then queued, then admitted. */
export async function expectReopenedInTurn(scenario: Pick<Scenario, 'sandbox'>, why: string): Promise<void> {
  expect(await savedState(scenario, 'a'), why).toMatchObject({ status: 'complete', iteration: 3, maxIterations: 5 })
  expect(await savedState(scenario, 'b'), why).toMatchObject({ status: 'complete', iteration: 3 })
  const history = await queueHistory(scenario)
  expect(
    history.filter(({ record }) => record.running.length > 1).map(({ record }) => loopsOf(record)),
    why,
  ).toEqual([])
  const journey = (await journeyOf(scenario, 'a')).map((event) => event.type)
  const reopenedAt = journey.indexOf('cap-changed')
  expect(journey.slice(reopenedAt, reopenedAt + 4), journey.join(', ')).toEqual([
    'cap-changed',
    'resumed',
    'queued',
    'admitted',
  ])
}
