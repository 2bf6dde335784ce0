import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { getOctokit } from '@actions/github'
import { afterEach, describe, expect, it } from 'vitest'
import { type Sandbox, startSandbox } from '../sandbox/sandbox.js'
import { REPO_FILES, TEST_ACTION_DIR } from './fixtures.js'

let sandbox: Sandbox | undefined
afterEach(async () => {
  await sandbox?.stop()
  sandbox = undefined
})

const start = (vars: Record<string, string> = {}) =>
  startSandbox({
    actionDir: TEST_ACTION_DIR,
    repoFiles: REPO_FILES,
    users: { alice: 'write', bob: 'read' },
    workflow: { file: 'loop.yml' },
    vars,
  })

describe('workflow engine', () => {
  it('runs a chain of three jobs, each dispatched by the previous, in fresh workspaces with increasing run ids', async () => {
    sandbox = await start()
    const first = await sandbox.dispatch({ step: '1', 'chain-length': '3' })
    const jobs = await sandbox.waitForIdle(20_000)

    expect(jobs.map((j) => [j.inputs.step, j.conclusion, j.exitCode])).toEqual([
      ['1', 'success', 0],
      ['2', 'success', 0],
      ['3', 'success', 0],
    ])
    expect(jobs[0]?.runId).toBe(first.runId)
    const ids = jobs.map((j) => j.runId)
    expect([...ids].sort((a, b) => a - b)).toEqual(ids)
    expect(new Set(ids).size).toBe(3)
    expect(jobs.map((j) => j.runNumber)).toEqual([1, 2, 3])
    expect(new Set(jobs.map((j) => j.workspace)).size).toBe(3)
    expect(jobs.map((j) => j.outputs.fresh)).toEqual(['true', 'true', 'true'])
    // Each job dispatched the next; the dispatch answered with the next run's id.
    expect(jobs[0]?.outputs['next-run-id']).toBe(String(jobs[1]?.runId))
    expect(jobs[2]?.outputs['next-run-id']).toBeUndefined()
    // Heredoc outputs, state, summary (with the post step's line), annotations, masking.
    expect(jobs[1]?.outputs.notes).toBe('line one of 2\nline two')
    expect(jobs[1]?.state['started-step']).toBe('2')
    expect(jobs[1]?.summary).toContain('## step 2 of 3')
    expect(jobs[1]?.summary).toContain('post step saw started-step=2')
    expect(jobs[1]?.annotations).toEqual([
      { level: 'warning', message: 'step 2\nsecond line', file: 'src/step.ts', line: 2, col: 2, title: 'step: 2' },
    ])
    expect(jobs[1]?.stdout).toContain('the secret is ***')
    expect(jobs[1]?.stdout).not.toContain('secret-of-step-2')
    const octokit = getOctokit(sandbox.tokenOf('acme'), { baseUrl: sandbox.api.url })
    const run = await octokit.rest.actions.getWorkflowRun({ owner: 'acme', repo: 'demo', run_id: jobs[2]?.runId ?? 0 })
    expect(run.data).toMatchObject({
      status: 'completed',
      conclusion: 'success',
      run_number: 3,
      event: 'workflow_dispatch',
    })
    expect(sandbox.api.violations).toEqual([])
    expect(sandbox.engine.problems).toEqual([])
  })

  it('gives the action the environment and INPUT_* variables the runner sets', async () => {
    sandbox = await start()
    await sandbox.dispatch({ step: '1', 'chain-length': '1' })
    const [job] = await sandbox.waitForIdle(20_000)
    const seen = JSON.parse(job?.outputs['seen-env'] ?? '{}') as Record<string, string>

    expect(seen).toMatchObject({
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_REPOSITORY: 'acme/demo',
      GITHUB_REPOSITORY_OWNER: 'acme',
      GITHUB_REF: 'refs/heads/main',
      GITHUB_REF_NAME: 'main',
      GITHUB_REF_TYPE: 'branch',
      GITHUB_SHA: sandbox.git.resolveRef('refs/heads/main'),
      GITHUB_RUN_ID: String(job?.runId),
      GITHUB_RUN_NUMBER: '1',
      GITHUB_RUN_ATTEMPT: '1',
      GITHUB_EVENT_NAME: 'workflow_dispatch',
      GITHUB_WORKSPACE: job?.workspace,
      GITHUB_API_URL: sandbox.api.url,
      GITHUB_GRAPHQL_URL: `${sandbox.api.url}/graphql`,
      GITHUB_ACTOR: 'acme',
      GITHUB_WORKFLOW: 'loop',
      GITHUB_WORKFLOW_REF: 'acme/demo/.github/workflows/loop.yml@refs/heads/main',
      GITHUB_JOB: 'loop',
      RUNNER_OS: 'Linux',
      ACTIONS_RESULTS_URL: `${sandbox.results.url}/`,
      // Declared input names, as the runner spells them: upper case, spaces to underscores, dashes kept.
      INPUT_STEP: '1',
      INPUT_CHAIN_LENGTH: '1',
      'INPUT_DELAY-MS': '',
      'INPUT_GITHUB-TOKEN': job?.token,
    })
    for (const name of [
      'GITHUB_OUTPUT',
      'GITHUB_STATE',
      'GITHUB_ENV',
      'GITHUB_PATH',
      'GITHUB_STEP_SUMMARY',
      'GITHUB_EVENT_PATH',
    ]) {
      expect(seen[name], name).toMatch(/^\//)
    }
    expect(seen.RUNNER_TEMP).toBeTruthy()
    expect(seen.RUNNER_TOOL_CACHE).toBeTruthy()
    expect(seen.ACTIONS_RUNTIME_TOKEN?.split('.')).toHaveLength(3)
    expect(seen.ACTIONS_CACHE_SERVICE_V2).toBeTruthy()
    // The GITHUB_TOKEN is revoked when the job ends.
    const after = await fetch(`${sandbox.api.url}/repos/acme/demo`, {
      headers: { authorization: `token ${job?.token}` },
    })
    expect(after.status).toBe(401)
  })

  it('keeps one running and one pending job per concurrency group; a newer pending cancels the older', async () => {
    sandbox = await start({ DELAY_MS: '600' })
    await sandbox.dispatch({ step: '1', 'chain-length': '1' })
    await sandbox.dispatch({ step: '2', 'chain-length': '2' })
    expect(sandbox.jobs.map((j) => j.status)).toEqual(['running', 'pending'])
    await sandbox.dispatch({ step: '3', 'chain-length': '3' })
    expect(sandbox.jobs.map((j) => j.status)).toEqual(['running', 'completed', 'pending'])
    const jobs = await sandbox.waitForIdle(20_000)

    expect(jobs.map((j) => [j.inputs.step, j.conclusion])).toEqual([
      ['1', 'success'],
      ['2', 'cancelled'],
      ['3', 'success'],
    ])
    expect(jobs[1]?.reason).toBe("Canceling since a higher priority waiting request for 'loop-refs/heads/main' exists")
    expect(jobs[1]?.exitCode).toBeNull()
    expect((jobs[2]?.startedAt ?? 0) >= (jobs[0]?.startedAt ?? 0) + (jobs[0]?.durationMs ?? 0)).toBe(true)
  })

  it('refuses dispatches GitHub would refuse: unknown inputs, unknown refs, unknown workflows', async () => {
    sandbox = await start()
    await expect(sandbox.dispatch({ step: '1', colour: 'red' })).rejects.toThrow(
      /422.*Unexpected inputs provided: \[\\"colour\\"\]/,
    )
    await expect(sandbox.dispatch({ step: '1' }, { ref: 'no-such-branch' })).rejects.toThrow(
      /422.*No ref found for: no-such-branch/,
    )
    // A ref that exists but is no branch or tag (a pull request's merge ref) is not dispatched to either.
    const main = sandbox.git.resolveRef('refs/heads/main') ?? ''
    await promisify(execFile)('git', ['--git-dir', sandbox.git.bareDir, 'update-ref', 'refs/pull/1/merge', main])
    await expect(sandbox.dispatch({ step: '1' }, { ref: 'refs/pull/1/merge' })).rejects.toThrow(
      /422.*No ref found for: refs\/pull\/1\/merge/,
    )
    const response = await fetch(`${sandbox.api.url}/repos/acme/demo/actions/workflows/other.yml/dispatches`, {
      method: 'POST',
      headers: { authorization: `token ${sandbox.tokenOf('acme')}` },
      body: JSON.stringify({ ref: 'main' }),
    })
    expect(response.status).toBe(404)
    expect(sandbox.jobs).toEqual([])
  })

  it('stops a runaway chain at the job limit and reports it', async () => {
    sandbox = await startSandbox({
      actionDir: TEST_ACTION_DIR,
      repoFiles: REPO_FILES,
      workflow: { file: 'loop.yml' },
      maxJobs: 2,
    })
    await sandbox.dispatch({ step: '1', 'chain-length': '5' })
    const jobs = await sandbox.waitForIdle(20_000)
    expect(jobs.map((j) => j.conclusion)).toEqual(['success', 'failure'])
    expect(sandbox.engine.problems).toEqual([
      'sandbox: job limit of 2 reached; refusing workflow_dispatch on refs/heads/main (a loop that never ends?)',
    ])
  })
})

describe('results service through the sandbox', () => {
  it('lets the action upload an artifact and save a cache entry, and lists both through the REST API', async () => {
    sandbox = await start({ STORE: 'true' })
    await sandbox.dispatch({ step: '1', 'chain-length': '1' })
    const [job] = await sandbox.waitForIdle(30_000)
    expect(job?.stderr).toBe('')
    expect(job?.conclusion).toBe('success')
    expect(Number(job?.outputs['artifact-id'])).toBeGreaterThan(0)
    expect(Number(job?.outputs['cache-id'])).toBeGreaterThan(0)

    const octokit = getOctokit(sandbox.tokenOf('acme'), { baseUrl: sandbox.api.url })
    const repo = { owner: 'acme', repo: 'demo' }
    const artifacts = await octokit.rest.actions.listWorkflowRunArtifacts({ ...repo, run_id: job?.runId ?? 0 })
    expect(artifacts.data.artifacts.map((a) => a.name)).toEqual(['state-1'])
    const caches = await octokit.rest.actions.getActionsCacheList({ ...repo, key: 'loop-state-' })
    expect(caches.data.actions_caches.map((c) => [c.key, c.ref])).toEqual([['loop-state-1', 'refs/heads/main']])
    await octokit.rest.actions.deleteActionsCacheByKey({ ...repo, key: 'loop-state-1' })
    expect(sandbox.results.cacheKeys()).toEqual([])
    expect(sandbox.api.violations).toEqual([])
  })
})

describe('cancel-in-progress', () => {
  it('cancels the running job when a newer one joins the group', async () => {
    sandbox = await startSandbox({
      actionDir: TEST_ACTION_DIR,
      repoFiles: REPO_FILES,
      workflow: { file: 'loop.yml', cancelInProgress: true },
      vars: { DELAY_MS: '2000' },
    })
    await sandbox.dispatch({ step: '1', 'chain-length': '1' })
    await new Promise((resolve) => setTimeout(resolve, 300))
    await sandbox.dispatch({ step: '2', 'chain-length': '2' })
    const jobs = await sandbox.waitForIdle(20_000)
    expect(jobs.map((j) => j.conclusion)).toEqual(['cancelled', 'success'])
    expect(jobs[0]?.reason).toMatch(/^Canceling since a higher priority waiting request/)
  })
})
