import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { githubDescription } from '../sandbox/openapi.js'
import { type Sandbox, startSandbox } from '../sandbox/sandbox.js'
import { LOOP_WORKFLOW, REPO_FILES, TEST_ACTION_DIR } from './fixtures.js'

const execGit = promisify(execFile)
const openapi = githubDescription()
const schemaProblems = (name: string, value: unknown, path: string) =>
  openapi.validate({ $ref: `#/components/schemas/${name}` }, value, path)

let sandbox: Sandbox | undefined
afterEach(async () => {
  await sandbox?.stop()
  sandbox = undefined
})

const start = () =>
  startSandbox({
    actionDir: TEST_ACTION_DIR,
    repoFiles: REPO_FILES,
    users: { alice: 'write', bob: 'read', mallory: 'none' },
    workflow: { file: 'loop.yml' },
  })

async function openLoopPull(s: Sandbox): Promise<number> {
  await s.git.commit('loop/issue-1', { 'src/step.ts': 'export const step = 2\n' }, 'work', 'acme')
  const response = await fetch(`${s.api.url}/repos/acme/demo/pulls`, {
    method: 'POST',
    headers: { authorization: `token ${s.tokenOf('acme')}` },
    body: JSON.stringify({ head: 'loop/issue-1', base: 'main', title: 'loop: issue-1' }),
  })
  expect(response.status).toBe(201)
  return ((await response.json()) as { number: number }).number
}

describe('events people cause', () => {
  it('delivers issue_comment with the comment posted through the API and an on-schema payload', async () => {
    sandbox = await start()
    const pull = await openLoopPull(sandbox)
    const { commentId, job } = await sandbox.comment('alice', '/loop approve deploy')
    await sandbox.waitForIdle(20_000)

    expect(sandbox.api.model.comments.map((c) => [c.id, c.user.login, c.body])).toEqual([
      [commentId, 'alice', '/loop approve deploy'],
    ])
    expect(job?.event).toBe('issue_comment')
    expect(job?.conclusion).toBe('success')
    expect(job?.ref).toBe('refs/heads/main')
    const payload = JSON.parse(readFileSync(job?.env.GITHUB_EVENT_PATH ?? '', 'utf8'))
    expect(payload).toMatchObject({
      action: 'created',
      issue: { number: pull, pull_request: { url: expect.stringContaining(`/pulls/${pull}`) } },
      comment: {
        id: commentId,
        body: '/loop approve deploy',
        user: { login: 'alice' },
        author_association: 'COLLABORATOR',
      },
      sender: { login: 'alice' },
      repository: { full_name: 'acme/demo' },
    })
    expect([
      ...schemaProblems('issue', payload.issue, 'issue'),
      ...schemaProblems('issue-comment', payload.comment, 'comment'),
      ...schemaProblems('full-repository', payload.repository, 'repository'),
      ...schemaProblems('simple-user', payload.sender, 'sender'),
    ]).toEqual([])
    expect(sandbox.api.violations).toEqual([])
  })

  it('delivers issues edited with the body before the edit in changes.body.from, on GitHub`s webhook schema', async () => {
    sandbox = await startSandbox({
      actionDir: TEST_ACTION_DIR,
      repoFiles: {
        ...REPO_FILES,
        '.github/workflows/loop.yml': LOOP_WORKFLOW.replace(
          '  issue_comment:',
          '  issues:\n    types: [edited]\n  issue_comment:',
        ),
      },
      users: { alice: 'write' },
      workflow: { file: 'loop.yml' },
    })
    const issue = sandbox.api.model.createIssue(sandbox.api.model.user('alice'), 'Tasks', '- [ ] one')
    const job = await sandbox.editIssue('alice', issue.number, '- [x] one')
    await sandbox.waitForIdle(20_000)
    expect(job?.event).toBe('issues')
    const payload = JSON.parse(readFileSync(job?.env.GITHUB_EVENT_PATH ?? '', 'utf8'))
    expect(payload).toMatchObject({
      action: 'edited',
      changes: { body: { from: '- [ ] one' } },
      issue: { number: issue.number, body: '- [x] one' },
      sender: { login: 'alice' },
    })
    expect(schemaProblems('webhook-issues-edited', payload, 'payload')).toEqual([])
    await expect(sandbox.editIssue('alice', issue.number, '- [x] one')).rejects.toThrow(/leaves its body as it was/)
    // `types: [edited]`: an issue opened starts no run, as on GitHub.
    expect((await sandbox.openIssue('alice', 'Another')).job).toBeUndefined()
    expect(sandbox.api.violations).toEqual([])
  })

  it('delivers pull_request_review on the pull request`s merge ref, as GitHub does, with a lower-case review state', async () => {
    sandbox = await start()
    const pull = await openLoopPull(sandbox)
    const job = await sandbox.review('alice', pull, 'APPROVED', 'ship it')
    await sandbox.waitForIdle(20_000)

    // GitHub runs it on refs/pull/N/merge: a test merge of the head into the base, at that commit.
    expect(job?.ref).toBe(`refs/pull/${pull}/merge`)
    expect(job?.env.GITHUB_REF_NAME).toBe(`${pull}/merge`)
    const merge = sandbox.git.resolveRef(`refs/pull/${pull}/merge`)
    expect(job?.sha).toBe(merge)
    const parents = sandbox.git.resolveRef(`refs/pull/${pull}/merge^1`)
    expect(parents).toBe(sandbox.git.resolveRef('refs/heads/main'))
    expect(sandbox.git.resolveRef(`refs/pull/${pull}/merge^2`)).toBe(sandbox.git.resolveRef('refs/heads/loop/issue-1'))
    expect(sandbox.git.resolveRef(`refs/pull/${pull}/head`)).toBe(sandbox.git.resolveRef('refs/heads/loop/issue-1'))
    expect(job?.env.GITHUB_HEAD_REF).toBe('loop/issue-1')
    expect(job?.env.GITHUB_BASE_REF).toBe('main')
    expect(job?.eventPayload).toMatchObject({ action: 'submitted', review: { state: 'approved', body: 'ship it' } })
    expect(schemaProblems('pull-request', job?.eventPayload.pull_request, 'pull_request')).toEqual([])
  })

  it('applies a label through the API and starts no job when the workflow does not listen', async () => {
    sandbox = await start()
    const pull = await openLoopPull(sandbox)
    expect(await sandbox.label('alice', pull, 'loop/approved:deploy')).toBeUndefined()
    expect(sandbox.api.model.issue(pull).labels.map((l) => l.name)).toEqual(['loop/approved:deploy'])
    await expect(sandbox.label('bob', pull, 'loop/stop')).rejects.toThrow(/403/)
  })

  it('delivers pull_request_target from a fork on the base branch, with the fork head kept as refs/pull/N/head', async () => {
    sandbox = await start()
    const { number, job } = await sandbox.openForkPullRequest('mallory', {
      branch: 'patch-1',
      files: { 'src/step.ts': 'process.exit(1)\n' },
      title: 'innocent change',
    })
    await sandbox.waitForIdle(20_000)

    expect(job?.event).toBe('pull_request_target')
    expect(job?.ref).toBe('refs/heads/main')
    expect(job?.sha).toBe(sandbox.git.resolveRef('refs/heads/main'))
    expect(sandbox.git.resolveRef(`refs/pull/${number}/head`)).toMatch(/^[0-9a-f]{40}$/)
    expect(sandbox.git.resolveRef('refs/heads/fork-mallory-patch-1')).toBeUndefined()
    expect(job?.eventPayload).toMatchObject({
      action: 'opened',
      number,
      pull_request: {
        head: { ref: 'patch-1', repo: { fork: true, full_name: 'mallory/demo' } },
        base: { ref: 'main' },
      },
      sender: { login: 'mallory' },
    })
    expect(schemaProblems('pull-request', job?.eventPayload.pull_request, 'pull_request')).toEqual([])
  })
})

describe('git remote', () => {
  it('takes the tokens the API takes: writers push, readers only fetch, unknown tokens are refused', async () => {
    sandbox = await start()
    const s = sandbox
    const work = mkdtempSync(join(s.root, 'clone-'))
    const repo = join(work, 'repo')
    // Asynchronous on purpose: the servers run in this process, a synchronous git call would deadlock.
    const gitAs = async (login: string, ...args: string[]) => {
      const basic = Buffer.from(`x-access-token:${login === 'nobody' ? 'ghp_forged' : s.tokenOf(login)}`).toString(
        'base64',
      )
      const { stdout } = await execGit('git', ['-c', `http.extraheader=AUTHORIZATION: basic ${basic}`, ...args], {
        cwd: work,
      })
      return stdout.trim()
    }
    await expect(gitAs('nobody', 'clone', '--quiet', s.git.cloneUrl, 'repo')).rejects.toThrow(/could not read Username/)
    await gitAs('bob', 'clone', '--quiet', s.git.cloneUrl, 'repo')
    await execGit('git', ['-C', repo, 'commit', '--quiet', '--allow-empty', '-m', 'by bob'])
    await expect(gitAs('bob', '-C', repo, 'push', '--quiet', 'origin', 'HEAD:refs/heads/bob')).rejects.toThrow(/403/)
    await gitAs('alice', '-C', repo, 'push', '--quiet', 'origin', 'HEAD:refs/heads/alice')
    expect(s.git.resolveRef('refs/heads/alice')).toBe(await gitAs('alice', '-C', repo, 'rev-parse', 'HEAD'))
  })
})

describe("the job's if: condition", () => {
  it('skips jobs whose condition is false, as GitHub does, and runs the others', async () => {
    const workflow = LOOP_WORKFLOW.replace(
      '    runs-on: ubuntu-latest',
      "    if: github.event_name != 'issue_comment' || contains(github.event.comment.body, '/loop')\n    runs-on: ubuntu-latest",
    )
    sandbox = await startSandbox({
      actionDir: TEST_ACTION_DIR,
      repoFiles: { ...REPO_FILES, '.github/workflows/loop.yml': workflow },
      users: { alice: 'write' },
      workflow: { file: 'loop.yml' },
    })
    await sandbox.openIssue('alice', 'a loop')
    const chatter = await sandbox.comment('alice', 'thanks!')
    const command = await sandbox.comment('alice', '/loop resume')
    await sandbox.waitForIdle(20_000)
    expect(chatter.job?.conclusion).toBe('skipped')
    expect(chatter.job?.workspace).toBe('')
    expect(command.job?.conclusion).toBe('success')
    expect(sandbox.api.model.runs.get(chatter.job?.runId ?? 0)?.conclusion).toBe('skipped')
  })
})
