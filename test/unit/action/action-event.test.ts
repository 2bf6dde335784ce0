import { describe, expect, it } from 'vitest'
import { interpretEvent, parseWorkflowRef, subjectOf } from '../../../src/domain/action-event.js'

const alice = { login: 'alice', type: 'User' }

describe('interpretEvent', () => {
  it.each([
    { event: 'workflow_dispatch', payload: {}, expected: { kind: 'run' } },
    { event: 'schedule', payload: {}, expected: { kind: 'run' } },
    {
      event: 'issues',
      payload: { action: 'labeled', label: { name: 'loop' }, sender: alice },
      expected: { kind: 'start', via: 'label', actor: 'alice', actorType: 'User' },
    },
    {
      event: 'issues',
      payload: { action: 'labeled', label: { name: 'loop/approved:security' }, sender: alice },
      expected: {
        kind: 'command',
        command: { kind: 'approve', gate: 'security' },
        via: 'label',
        actor: 'alice',
        actorType: 'User',
      },
    },
    {
      event: 'issues',
      payload: { action: 'labeled', label: { name: 'bug' }, sender: alice },
      expected: { kind: 'none', why: "label 'bug' is not for the loop" },
    },
    { event: 'issues', payload: { action: 'opened' }, expected: { kind: 'none', why: 'issues opened' } },
    {
      event: 'pull_request',
      payload: { action: 'synchronize' },
      expected: { kind: 'none', why: 'pull_request synchronize' },
    },
    {
      event: 'pull_request',
      payload: { action: 'closed', pull_request: { number: 7, merged: true, merged_by: alice }, sender: alice },
      expected: { kind: 'merged', number: 7, actor: 'alice' },
    },
    {
      event: 'pull_request_target',
      payload: { action: 'closed', pull_request: { number: 7, merged: true, merged_by: null }, sender: alice },
      expected: { kind: 'merged', number: 7, actor: 'alice' },
    },
    {
      event: 'pull_request',
      payload: { action: 'closed', pull_request: { number: 7, merged: false }, sender: alice },
      expected: { kind: 'none', why: 'the pull request was closed without merging' },
    },
    {
      event: 'issues',
      payload: { action: 'closed', issue: { number: 7 }, sender: alice },
      expected: { kind: 'none', why: 'issues closed' },
    },
    {
      event: 'issue_comment',
      payload: { action: 'created', comment: { body: '/loop start mind the `rounding`', user: alice } },
      expected: {
        kind: 'start',
        via: 'comment',
        actor: 'alice',
        actorType: 'User',
        instructions: 'mind the `rounding`',
      },
    },
    {
      event: 'pull_request_review',
      payload: { review: { body: '/loop start', state: 'commented', user: alice } },
      expected: {
        kind: 'problem',
        problem: '`/loop start` goes in a comment on the issue or pull request.',
        actor: 'alice',
        actorType: 'User',
      },
    },
    {
      event: 'issue_comment',
      payload: { action: 'created', comment: { body: 'hm\n/loop resume', user: alice } },
      expected: { kind: 'command', command: { kind: 'resume' }, via: 'comment', actor: 'alice', actorType: 'User' },
    },
    {
      event: 'issue_comment',
      payload: { action: 'created', comment: { body: '/loop approve $(id)', user: alice } },
      expected: { kind: 'problem', actor: 'alice', actorType: 'User' },
    },
    {
      event: 'issue_comment',
      payload: { action: 'edited', comment: { body: '/loop resume', user: alice } },
      expected: { kind: 'none', why: 'comment edited' },
    },
    {
      event: 'issue_comment',
      payload: { action: 'created', comment: { body: 'thanks!', user: alice } },
      expected: { kind: 'none', why: 'the comment holds no /loop command' },
    },
    {
      event: 'pull_request_review',
      payload: { action: 'submitted', review: { state: 'approved', body: null, user: alice } },
      expected: { kind: 'review-approval', actor: 'alice', actorType: 'User' },
    },
    {
      event: 'pull_request_review',
      payload: { action: 'submitted', review: { state: 'commented', body: '/loop abort', user: alice } },
      expected: { kind: 'command', command: { kind: 'abort' }, via: 'review', actor: 'alice', actorType: 'User' },
    },
    {
      event: 'pull_request_review',
      payload: { action: 'submitted', review: { state: 'changes_requested', body: 'no', user: alice } },
      expected: { kind: 'none', why: 'a review that does not approve (changes_requested)' },
    },
  ])('$event $payload.action', ({ event, payload, expected }) => {
    expect(interpretEvent(event, payload)).toMatchObject(expected)
  })
})

describe('subjectOf', () => {
  it('reads an issue, a comment on a pull request and a pull request', () => {
    expect(subjectOf({ issue: { number: 4, labels: [{ name: 'loop' }, { name: 'loop/stop' }] } })).toEqual({
      number: 4,
      isPullRequest: false,
      labels: ['loop', 'loop/stop'],
      headRef: null,
    })
    expect(subjectOf({ issue: { number: 5, pull_request: { url: 'x' } } }).isPullRequest).toBe(true)
    expect(subjectOf({ pull_request: { number: 6, head: { ref: 'loop/issue-4' }, labels: [] } })).toEqual({
      number: 6,
      isPullRequest: true,
      labels: [],
      headRef: 'loop/issue-4',
    })
    expect(subjectOf({}).number).toBeNull()
  })
})

describe('parseWorkflowRef', () => {
  it.each([
    { ref: 'o/r/.github/workflows/loop.yml@refs/heads/main', expected: { file: 'loop.yml', ref: 'refs/heads/main' } },
    { ref: 'o/r/.github/workflows/a-b.yaml@refs/tags/v1', expected: { file: 'a-b.yaml', ref: 'refs/tags/v1' } },
    { ref: 'garbage', expected: null },
  ])('$ref', ({ ref, expected }) => {
    expect(parseWorkflowRef(ref)).toEqual(expected)
  })
})
