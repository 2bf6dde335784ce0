// The git remote refuses what GitHub refuses a job's GITHUB_TOKEN: a push that changes a workflow file.
// A person's token (a PAT with the workflow scope) may push one.
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import type { Sandbox } from '../sandbox/sandbox.js'
import { sandboxPerTest } from './fixtures.js'

const execGit = promisify(execFile)
const sandboxes = sandboxPerTest()

const PUSHER = `name: pusher
on: workflow_dispatch
permissions:
  contents: write
jobs:
  push:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - id: notes
        run: |
          git config user.name bot && git config user.email bot@example.invalid
          echo x > notes.txt && git add notes.txt && git commit -qm notes
          git push -q origin HEAD:refs/heads/notes
      - id: workflow
        continue-on-error: true
        run: |
          mkdir -p .github/workflows && echo 'on: push' > .github/workflows/x.yml
          git add .github && git commit -qm workflow
          git push -q origin HEAD:refs/heads/workflow
      - id: deleted
        continue-on-error: true
        run: |
          git reset -q --hard origin/main && git rm -q .github/workflows/pusher.yml && git commit -qm gone
          git push -q origin HEAD:refs/heads/gone
`

/** A job that merges a branch the remote holds, whose one commit adds a workflow file, and pushes the merge. */
const MERGER = `name: merger
on: workflow_dispatch
permissions:
  contents: write
jobs:
  merge:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - id: merge
        run: |
          git config user.name bot && git config user.email bot@example.invalid
          git fetch -q origin person-workflow
          git merge -q --no-ff --no-edit FETCH_HEAD
          test "$(git rev-list --count --merges HEAD^..HEAD)" = 1
      - id: onto-main
        continue-on-error: true
        run: git push -q origin HEAD:refs/heads/main
      - id: new-branch
        continue-on-error: true
        run: git push -q origin HEAD:refs/heads/merged
`

describe('pushes of workflow files', () => {
  it('refuses a GITHUB_TOKEN push that adds or deletes a workflow file, as GitHub does; other pushes land', async () => {
    const sandbox = await sandboxes.start('pusher.yml', PUSHER)
    await sandbox.dispatch({})
    const [job] = await sandbox.waitForIdle(30_000)

    expect(job?.steps.map((step) => [step.id, step.outcome])).toEqual([
      [expect.any(String), 'success'],
      ['notes', 'success'],
      ['workflow', 'failure'],
      ['deleted', 'failure'],
    ])
    expect(job?.stderr).toContain(
      'refusing to allow a GitHub App to create or update workflow `.github/workflows/x.yml` without `workflows` permission',
    )
    expect(job?.stderr).toContain('workflow `.github/workflows/pusher.yml` without')
    expect(sandbox.engine.resolveRef('refs/heads/notes')).toBeDefined()
    expect(sandbox.engine.resolveRef('refs/heads/workflow')).toBeUndefined()
    expect(sandbox.engine.resolveRef('refs/heads/gone')).toBeUndefined()
  })

  it("takes a person's push of a workflow file (a PAT with the workflow scope), and refuses every push while rejectPushes", async () => {
    const sandbox = await sandboxes.start('pusher.yml', PUSHER)
    const git = await pushPersonWorkflow(sandbox, 'y.yml', 'by-person')
    expect(sandbox.engine.resolveRef('refs/heads/by-person')).toBeDefined()

    await sandbox.gitServer.rejectPushes(sandbox.gitRepositoryName, 'the remote is read-only today')
    await expect(git('push', '-q', 'origin', 'HEAD:refs/heads/again')).rejects.toThrow(/read-only today/)
    await sandbox.gitServer.rejectPushes(sandbox.gitRepositoryName, null)
    await git('push', '-q', 'origin', 'HEAD:refs/heads/again')
    expect(sandbox.engine.resolveRef('refs/heads/again')).toBeDefined()
  })

  it('refuses a GITHUB_TOKEN push of a merge that brings in a workflow file the remote already holds on another branch', async () => {
    const sandbox = await sandboxes.start('merger.yml', MERGER)
    await pushPersonWorkflow(sandbox, 'z.yml', 'person-workflow')
    const mainBefore = sandbox.engine.resolveRef('refs/heads/main')

    await sandbox.dispatch({})
    const [job] = await sandbox.waitForIdle(30_000)

    expect(job?.steps.map((step) => [step.id, step.outcome])).toEqual([
      [expect.any(String), 'success'],
      ['merge', 'success'],
      ['onto-main', 'failure'],
      ['new-branch', 'failure'],
    ])
    expect(job?.stderr).toContain('workflow `.github/workflows/z.yml` without `workflows` permission')
    expect(sandbox.engine.resolveRef('refs/heads/main')).toBe(mainBefore)
    expect(sandbox.engine.resolveRef('refs/heads/merged')).toBeUndefined()
  })
})

/**
 * A person (acme, whose token stands for a PAT with the workflow scope) pushes a commit adding
 * `.github/workflows/<file>` to `branch`; returns git in that person's clone.
 */
async function pushPersonWorkflow(sandbox: Sandbox, file: string, branch: string) {
  const work = mkdtempSync(join(sandbox.root, 'person-'))
  const url = sandbox.git.cloneUrl.replace('http://', `http://x-access-token:${sandbox.tokenOf('acme')}@`)
  const git = (...args: string[]) => execGit('git', args, { cwd: work })
  await git('clone', '-q', url, '.')
  await git('config', 'user.name', 'acme')
  await git('config', 'user.email', 'acme@example.invalid')
  mkdirSync(join(work, '.github', 'workflows'), { recursive: true })
  writeFileSync(join(work, '.github', 'workflows', file), 'on: push\n')
  await git('add', '.github')
  await git('commit', '-qm', `a workflow by a person: ${file}`)
  await git('push', '-q', 'origin', `HEAD:refs/heads/${branch}`)
  return git
}
