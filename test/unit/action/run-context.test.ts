// The run context: read once from the environment, the event and the inputs; the one place the
// runner's URL fallbacks live.
import { describe, expect, it } from 'vitest'
import { buildRunContext, requireRepository, requireRunId } from '../../../src/action/run-context.js'

function context(env: Record<string, string | undefined>, payload: Record<string, unknown> = {}) {
  const inputs: Record<string, string> = { 'github-token': 'tok' }
  return buildRunContext({
    env,
    event: { eventName: 'workflow_dispatch', payload, runId: 7 },
    getInput: (name) => inputs[name] ?? '',
    cwd: '/here',
  })
}

describe('buildRunContext', () => {
  it.each([
    { env: {}, serverUrl: 'https://github.com', apiUrl: 'https://api.github.com' },
    {
      env: { GITHUB_SERVER_URL: '', GITHUB_API_URL: '' },
      serverUrl: 'https://github.com',
      apiUrl: 'https://api.github.com',
    },
    {
      env: { GITHUB_SERVER_URL: 'https://ghe.example', GITHUB_API_URL: 'https://ghe.example/api/v3' },
      serverUrl: 'https://ghe.example',
      apiUrl: 'https://ghe.example/api/v3',
    },
  ])('server $serverUrl and API $apiUrl from $env', ({ env, serverUrl, apiUrl }) => {
    const run = context(env)
    expect(run.serverUrl).toBe(serverUrl)
    expect(run.apiUrl).toBe(apiUrl)
  })

  it.each([
    { env: {}, workspace: '/here', runnerTemp: undefined, hasStepSummary: false },
    {
      env: { GITHUB_WORKSPACE: '', RUNNER_TEMP: '' },
      workspace: '/here',
      runnerTemp: undefined,
      hasStepSummary: false,
    },
    {
      env: { GITHUB_WORKSPACE: '/w', RUNNER_TEMP: '/t', GITHUB_STEP_SUMMARY: '/s.md' },
      workspace: '/w',
      runnerTemp: '/t',
      hasStepSummary: true,
    },
  ])('folders from $env', ({ env, workspace, runnerTemp, hasStepSummary }) => {
    const run = context(env)
    expect(run.workspace).toBe(workspace)
    expect(run.runnerTemp).toBe(runnerTemp)
    expect(run.hasStepSummary).toBe(hasStepSummary)
  })

  it('carries the runner variables as given', () => {
    const run = context({
      GITHUB_REPOSITORY: 'o/r',
      GITHUB_RUN_ID: '42',
      GITHUB_RUN_ATTEMPT: '2',
      GITHUB_ACTOR: 'ada',
      GITHUB_WORKFLOW_REF: 'o/r/.github/workflows/loop.yml@refs/heads/main',
    })
    expect(run).toMatchObject({
      repository: 'o/r',
      runId: '42',
      runAttempt: '2',
      actor: 'ada',
      workflowRef: 'o/r/.github/workflows/loop.yml@refs/heads/main',
    })
    expect(run.settings.loopId).toBe('run-7')
    expect(run.event.name).toBe('workflow_dispatch')
  })

  it.each([
    { what: 'an issue', payload: { issue: { number: 5 } }, issueToClose: 5 },
    { what: 'a comment on a pull request', payload: { issue: { number: 5, pull_request: {} } }, issueToClose: null },
    { what: 'a pull request', payload: { pull_request: { number: 6 } }, issueToClose: null },
    { what: 'no issue', payload: {}, issueToClose: null },
  ])('closes the issue for $what', ({ payload, issueToClose }) => {
    expect(context({}, payload).event.issueToClose).toBe(issueToClose)
  })

  it.each([
    { payload: { repository: { default_branch: 'trunk' } }, defaultBranch: 'trunk' },
    { payload: { repository: {} }, defaultBranch: 'main' },
    { payload: {}, defaultBranch: 'main' },
  ])('default branch $defaultBranch', ({ payload, defaultBranch }) => {
    expect(context({}, payload).event.defaultBranch).toBe(defaultBranch)
  })

  it('names every bad input before anything else', () => {
    expect(() =>
      buildRunContext({
        env: {},
        event: { eventName: 'workflow_dispatch', payload: {}, runId: 1 },
        getInput: (name) => (name === 'store' ? 's3' : ''),
        cwd: '/',
      }),
    ).toThrow(/Input 'store' must be one of/)
  })
})

describe('requireRepository and requireRunId', () => {
  it('split the repository and read the run id', () => {
    const run = context({ GITHUB_REPOSITORY: 'octo/cat', GITHUB_RUN_ID: '99' })
    expect(requireRepository(run)).toEqual({ fullName: 'octo/cat', owner: 'octo', repo: 'cat' })
    expect(requireRunId(run)).toBe(99)
  })

  it('say the action runs inside a job when the runner did not set them', () => {
    const run = context({})
    expect(() => requireRepository(run)).toThrow(
      'GITHUB_REPOSITORY is not set; loop-controller runs inside a GitHub Actions job.',
    )
    expect(() => requireRunId(run)).toThrow(
      'GITHUB_RUN_ID is not set; loop-controller runs inside a GitHub Actions job.',
    )
  })
})
