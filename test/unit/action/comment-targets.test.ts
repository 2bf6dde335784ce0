import { describe, expect, it } from 'vitest'
import { commentTargets } from '../../../src/action/report.js'
import { pullRequestWaitingSection } from '../../../src/domain/report/index.js'
import { loopState } from './fakes.js'

const task = { source: 'issue' as const, number: 7, title: 't', body: 'b', author: 'alice' }
const pullRequest = { number: 12, url: 'https://github.com/o/r/pull/12', merged: false }

describe('commentTargets: where the sticky comment is kept current', () => {
  it.each([
    ['an issue event, no pull request yet', 7, {}, [7]],
    ['a dispatched job (no subject), the loop started from issue 7', undefined, { task }, [7]],
    [
      'a dispatched job, with its pull request: both the pull request and the issue',
      undefined,
      { task, pullRequest },
      [12, 7],
    ],
    ['a review on the pull request', 12, { task, pullRequest }, [12, 7]],
    ['a loop started by hand, without an issue or pull request', undefined, {}, []],
    [
      'a loop started from a pull request: that pull request once',
      12,
      { task: { ...task, source: 'pull-request' as const, number: 12 }, pullRequest },
      [12],
    ],
    [
      'a state started afresh after the store lost it (no task): the pull request and the issue its loop id names',
      undefined,
      { loopId: 'issue-7', pullRequest },
      [12, 7],
    ],
    ['a state without a task whose loop id names no issue: none is guessed', undefined, { loopId: 'run-7' }, []],
    [
      'a task wins over the loop id: a loop `issue-7` started from pull request 12',
      undefined,
      { loopId: 'issue-7', task: { ...task, source: 'pull-request' as const, number: 12 } },
      [],
    ],
  ])('%s', (_name, subject, overrides, expected) => {
    expect(commentTargets(subject, { ...loopState(), ...overrides })).toEqual(expected)
  })
})

describe('pullRequestWaitingSection', () => {
  it('names the setting, where it is, the push-token alternative and the compare link', () => {
    const compareUrl = 'https://github.com/o/r/compare/main...loop/issue-7?expand=1'
    const text = pullRequestWaitingSection({ pullRequestWaiting: { branch: 'loop/issue-7', compareUrl } })
    expect(text).toContain('Allow GitHub Actions to create and approve pull requests')
    expect(text).toContain('Settings → Actions → General → Workflow permissions')
    expect(text).toContain('`push-token`')
    expect(text).toContain(`(${compareUrl})`)
  })

  it('says nothing when the pull request is not waiting', () => {
    expect(pullRequestWaitingSection({})).toBe('')
  })
})
