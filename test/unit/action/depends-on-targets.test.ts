// The numbers a start's `depends-on` names are asked about: one that is no issue, or a pull request, is
// named; an answer that does not come only warns (the loop waits as before).
import { describe, expect, it } from 'vitest'
import { dependencyTargetsProblem } from '../../../src/action/depends-on.js'
import { recordingLogger } from './fakes.js'

const kinds: Record<number, 'issue' | 'pull-request' | 'none' | 'moved'> = {
  3: 'issue',
  7: 'pull-request',
  42: 'none',
  12: 'moved',
}
const github = {
  getIssueKind: async (issue: number) => {
    const kind = kinds[issue]
    if (kind === undefined) throw new Error('GitHub GET /repos/acme/demo/issues/9 failed (502): Bad Gateway')
    return kind
  },
}

describe('dependencyTargetsProblem', () => {
  it('names each number that is no issue, in order, and says nothing of the issues', async () => {
    const logger = recordingLogger()
    const problem = await dependencyTargetsProblem(['issue-42', 'issue-3', 'issue-7'], 'acme/demo', { github, logger })
    expect(problem).toBe('#42: no such issue in acme/demo; #7 is a pull request (depends-on names issues)')
    expect(logger.lines).toEqual([])
  })

  it('names a number whose issue was moved to another repository', async () => {
    const problem = await dependencyTargetsProblem(['issue-12', 'issue-3'], 'acme/demo', {
      github,
      logger: recordingLogger(),
    })
    expect(problem).toBe("#12 was moved to another repository (depends-on names this one's issues)")
  })

  it('is null when each is an issue; an answer that does not come warns and refuses nothing', async () => {
    const logger = recordingLogger()
    expect(await dependencyTargetsProblem(['issue-3', 'issue-9'], 'acme/demo', { github, logger })).toBeNull()
    expect(logger.lines.join('\n')).toContain('Whether #9 (named by depends-on) is an issue is unknown (GitHub GET')
  })
})
