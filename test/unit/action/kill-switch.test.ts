import { describe, expect, it } from 'vitest'
import { loopSubjects, stopLabelReader } from '../../../src/action/kill-switch.js'
import { loopState } from './fakes.js'

const task = { source: 'issue' as const, number: 7, title: 't', body: 'b', author: 'alice' }
const pullRequest = { number: 12, url: 'https://github.com/o/r/pull/12', merged: false }

describe('loopSubjects: where the stop label is looked for', () => {
  it.each([
    ['the task issue and the pull request', { task, pullRequest }, ['pull request #12', 'issue #7']],
    [
      'a loop started from its pull request: that pull request once',
      {
        task: { ...task, source: 'pull-request' as const, number: 12 },
        pullRequest,
      },
      ['pull request #12'],
    ],
    [
      'a state started afresh after the store lost it: the issue its loop id names',
      {
        loopId: 'issue-7',
        pullRequest,
      },
      ['pull request #12', 'issue #7'],
    ],
    ['a state without a task whose id names no issue: none is guessed', { loopId: 'run-7' }, []],
    [
      'a task wins over the loop id',
      {
        loopId: 'issue-9',
        task,
      },
      ['issue #7'],
    ],
  ])('%s', (_name, overrides, expected) => {
    const subjects = loopSubjects({ ...loopState(), ...overrides })
    expect(subjects.map((s) => `${s.kind} #${s.number}`)).toEqual(expected)
  })

  it('a stop label on the issue of a loop that lost its state is seen', async () => {
    const asked: number[] = []
    const read = stopLabelReader({
      listLabels: async (issue: number) => {
        asked.push(issue)
        return issue === 7 ? ['loop/stop'] : []
      },
    })
    expect(await read({ ...loopState(), loopId: 'issue-7', pullRequest })).toBe('issue #7')
    expect(asked).toEqual([12, 7])
  })
})
