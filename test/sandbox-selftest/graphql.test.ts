// The GraphQL stand-in: every query is validated against GitHub's published schema, a field the sandbox
// does not serve is a violation, permissions are those of the token, and a draft is not merged.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { nodeId } from '../sandbox/github-objects.js'
import { type RestApi, startRestApi } from '../sandbox/rest-api.js'

let api: RestApi

beforeEach(async () => {
  api = await startRestApi({
    owner: 'acme',
    repo: 'demo',
    users: { alice: 'write' },
    tokens: {
      full: { actor: 'github-actions[bot]', kind: 'installation', permissions: { 'pull-requests': 'write' } },
      readonly: { actor: 'github-actions[bot]', kind: 'installation', permissions: { 'pull-requests': 'read' } },
      alice: { actor: 'alice', kind: 'user', permissions: { contents: 'write', 'pull-requests': 'write' } },
    },
    resolveRef: () => 'a'.repeat(40),
  })
})
afterEach(async () => {
  await api.stop()
})

const READY =
  'mutation($id: ID!) { markPullRequestReadyForReview(input: { pullRequestId: $id }) { pullRequest { isDraft } } }'

const graphql = async (query: string, variables: Record<string, unknown>, token = 'full') => {
  const response = await fetch(`${api.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  })
  return {
    status: response.status,
    body: (await response.json()) as { data?: unknown; errors?: { message: string; type?: string }[] },
  }
}

function draftPull(): { number: number; id: string } {
  const alice = api.model.user('alice')
  const fields = {
    title: 't',
    body: null,
    head: 'loop/x',
    headSha: 'b'.repeat(40),
    base: 'main',
    baseSha: 'a'.repeat(40),
  }
  const pull = api.model.createPull(alice, fields, { draft: true })
  return { number: pull.number, id: nodeId('PR', pull.pull.id) }
}

describe('GraphQL stand-in', () => {
  it('marks a draft ready for review', async () => {
    const pull = draftPull()
    const reply = await graphql(READY, { id: pull.id })
    expect(reply).toEqual({
      status: 200,
      body: { data: { markPullRequestReadyForReview: { pullRequest: { isDraft: false } } } },
    })
    expect(api.model.pull(pull.number).pull.draft).toBe(false)
    expect(api.violations).toEqual([])
  })

  it('refuses a token without pull-requests: write as GitHub does (200, FORBIDDEN), and an unknown node', async () => {
    const pull = draftPull()
    const forbidden = await graphql(READY, { id: pull.id }, 'readonly')
    expect(forbidden.status).toBe(200)
    expect(forbidden.body.errors).toEqual([
      expect.objectContaining({ type: 'FORBIDDEN', message: 'Resource not accessible by integration' }),
    ])
    expect(api.model.pull(pull.number).pull.draft).toBe(true)
    const unknown = await graphql(READY, { id: 'PR_nothing' })
    expect(unknown.body.errors?.[0]).toMatchObject({ type: 'NOT_FOUND' })
    expect(api.violations).toEqual([])
  })

  it('records a query GitHub`s schema rejects, and a valid one the sandbox does not serve, as violations', async () => {
    const misspelt = await graphql(READY.replace('isDraft', 'isDrafted'), { id: 'x' })
    expect(misspelt.body.errors?.[0]?.message).toMatch(/Cannot query field "isDrafted" on type "PullRequest"/)
    const unserved = await graphql('query { viewer { login } }', {})
    expect(unserved.body.errors?.[0]?.message).toBe('the sandbox does not serve viewer')
    expect(api.violations).toEqual([
      expect.stringMatching(/^graphql: Cannot query field "isDrafted"/),
      'graphql: the sandbox does not serve viewer',
    ])
  })

  it('merges no draft: 405 "Pull Request is still a draft"', async () => {
    const pull = draftPull()
    const response = await fetch(`${api.url}/repos/acme/demo/pulls/${pull.number}/merge`, {
      method: 'PUT',
      headers: { authorization: 'token alice', 'content-type': 'application/json' },
      body: '{}',
    })
    expect(response.status).toBe(405)
    expect(await response.json()).toMatchObject({ message: 'Pull Request is still a draft' })
    expect(api.model.pull(pull.number).pull.merged).toBe(false)
  })
})

describe('GraphQL stand-in: pinning issues', () => {
  const PIN = 'mutation($id: ID!) { pinIssue(input: { issueId: $id }) { issue { number isPinned } } }'
  const UNPIN = 'mutation($id: ID!) { unpinIssue(input: { issueId: $id }) { issue { number } } }'
  const issue = (title: string) => api.model.createIssue(api.model.user('alice'), title, null)

  it('pins an issue, at most three per repository as GitHub does, and unpins one', async () => {
    api.addToken('issues', { actor: 'github-actions[bot]', kind: 'installation', permissions: { issues: 'write' } })
    const pinned = ['a', 'b', 'c'].map(issue)
    for (const target of pinned) {
      const reply = await graphql(PIN, { id: nodeId('I', target.id) }, 'issues')
      expect(reply.body).toEqual({ data: { pinIssue: { issue: { number: target.number, isPinned: true } } } })
    }
    const fourth = issue('d')
    const refused = await graphql(PIN, { id: nodeId('I', fourth.id) }, 'issues')
    expect(refused.body.errors?.[0]?.message).toMatch(/at most 3 pinned issues/)
    expect(fourth.pinned).toBeUndefined()
    await graphql(UNPIN, { id: nodeId('I', pinned[0]!.id) }, 'issues')
    expect(pinned[0]!.pinned).toBe(false)
    expect((await graphql(PIN, { id: nodeId('I', fourth.id) }, 'issues')).body.errors).toBeUndefined()
    expect(api.violations).toEqual([])
  })

  it('refuses a token without issues: write, and a pull request`s id (no Issue node)', async () => {
    const target = issue('a')
    const forbidden = await graphql(PIN, { id: nodeId('I', target.id) }, 'full')
    expect(forbidden.body.errors?.[0]).toMatchObject({ type: 'FORBIDDEN' })
    expect(target.pinned).toBeUndefined()
    api.addToken('issues', { actor: 'github-actions[bot]', kind: 'installation', permissions: { issues: 'write' } })
    const pull = draftPull()
    const notIssue = await graphql(PIN, { id: pull.id }, 'issues')
    expect(notIssue.body.errors?.[0]).toMatchObject({ type: 'NOT_FOUND' })
  })
})

describe('GraphQL stand-in: whether an issue is pinned', () => {
  const IS_PINNED =
    'query($owner: String!, $repo: String!, $number: Int!) { repository(owner: $owner, name: $repo) { issue(number: $number) { isPinned } } }'
  const issue = (title: string) => api.model.createIssue(api.model.user('alice'), title, null)

  it('answers isPinned for an issue of the repository, as the pins change', async () => {
    api.addToken('issues', { actor: 'github-actions[bot]', kind: 'installation', permissions: { issues: 'read' } })
    const target = issue('a')
    const ask = () => graphql(IS_PINNED, { owner: 'acme', repo: 'demo', number: target.number }, 'issues')
    expect((await ask()).body).toEqual({ data: { repository: { issue: { isPinned: false } } } })
    target.pinned = true
    expect((await ask()).body).toEqual({ data: { repository: { issue: { isPinned: true } } } })
    expect(api.violations).toEqual([])
  })

  it('refuses another repository, a missing issue, a token without issues access, and a field it does not model', async () => {
    api.addToken('issues', { actor: 'github-actions[bot]', kind: 'installation', permissions: { issues: 'read' } })
    const target = issue('a')
    const elsewhere = await graphql(IS_PINNED, { owner: 'acme', repo: 'other', number: target.number }, 'issues')
    expect(elsewhere.body.errors?.[0]).toMatchObject({ type: 'NOT_FOUND' })
    const missing = await graphql(IS_PINNED, { owner: 'acme', repo: 'demo', number: 999 }, 'issues')
    expect(missing.body.errors?.[0]).toMatchObject({ type: 'NOT_FOUND' })
    const forbidden = await graphql(IS_PINNED, { owner: 'acme', repo: 'demo', number: target.number }, 'readonly')
    expect(forbidden.body.errors?.[0]).toMatchObject({ type: 'FORBIDDEN' })
    expect(api.violations).toEqual([])
    const title = await graphql(IS_PINNED.replace('isPinned', 'isPinned title'), {
      owner: 'acme',
      repo: 'demo',
      number: target.number,
    })
    expect(title.body.errors?.[0]?.message).toBe('the sandbox does not serve repository.issue.title')
    expect(api.violations).toEqual(['graphql: the sandbox does not serve repository.issue.title'])
  })
})
