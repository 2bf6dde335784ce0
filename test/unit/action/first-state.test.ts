// A loop's first state: built from the config and the event that starts it, and saved by whichever job
// gets there first (a job that loses the race goes on with the other's).
import { describe, expect, it } from 'vitest'
import { firstState, saveFirstState } from '../../../src/action/first-state.js'
import { simpleModeConfig } from '../../../src/config/load-config.js'
import { loopState, memoryStore, NOW } from './fakes.js'

const config = simpleModeConfig({ work: 'true', verify: ['true'], goal: 'Make it pass.' })
const labelled = {
  name: 'issues',
  payload: {
    action: 'labeled',
    label: { name: 'loop' },
    issue: { number: 12, title: 'Fix the parser', body: 'It breaks on tabs.' },
  },
}

describe('firstState', () => {
  it("takes the config's goal and the issue as the task", () => {
    const state = firstState(labelled, { loopId: 'issue-12', config }, NOW)
    expect(state).toMatchObject({ loopId: 'issue-12', goal: 'Make it pass.', iteration: 0, status: 'running' })
    expect(state.task).toMatchObject({ source: 'issue', number: 12, title: 'Fix the parser' })
    expect(state.startedAt).toBe(NOW.toISOString())
  })
})

describe('saveFirstState', () => {
  it('saves the state when the loop has none', async () => {
    const store = memoryStore()
    const mine = loopState({ statusReason: 'mine' })
    expect(await saveFirstState(store, 'l1', mine)).toEqual({ state: mine, version: '1' })
    expect(store.saved).toEqual([mine])
  })

  it("goes on with another job's first state when that job saved first", async () => {
    const theirs = loopState({ statusReason: 'theirs' })
    const store = memoryStore({ l1: theirs })
    expect(await saveFirstState(store, 'l1', loopState({ statusReason: 'mine' }))).toEqual({
      state: theirs,
      version: '1',
    })
    expect(store.saved).toEqual([])
  })
})
