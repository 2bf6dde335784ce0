// A run, the jobs of one of its attempts, a job's log and an issue's state through the GitHub adapter,
// against the REST stand-in (which validates every request and response against GitHub's description):
// every page read, the attempt's jobs only, a log through its 302 to blob storage, a run still going, a
// closed issue, and a token without `actions` refused with the permission named.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { OctokitGitHub } from '../../../src/adapters/github.js'
import { GitHubPermissionError } from '../../../src/ports/github.js'
import { type RestApi, startRestApi } from '../../sandbox/rest-api.js'
import { ResultsServer } from '../../sandbox/results-server.js'
import type { JobModel } from '../../sandbox/run-jobs.js'

const BOT = 'github-actions[bot]'
const RUN_ID = 4242
let api: RestApi
let results: ResultsServer

beforeEach(async () => {
  results = await ResultsServer.start()
  api = await startRestApi({
    jobLogUrl: (jobId, log) => results.publishJobLog(jobId, log),
    owner: 'acme',
    repo: 'demo',
    tokens: {
      decide: { actor: BOT, kind: 'installation', permissions: { actions: 'write' } },
      plan: { actor: BOT, kind: 'installation', permissions: { contents: 'read' } },
      sweeper: { actor: BOT, kind: 'installation', permissions: { actions: 'read', issues: 'read' } },
    },
  })
  const now = '2026-11-26T10:00:00Z'
  api.model.runs.set(RUN_ID, {
    ...{ id: RUN_ID, runNumber: 7, runAttempt: 2, workflowId: 1, workflowPath: '.github/workflows/loop.yml' },
    ...{ workflowName: 'loop', event: 'workflow_dispatch', headBranch: 'main', headSha: 'a'.repeat(40) },
    ...{ actor: api.model.user('acme'), status: 'completed', conclusion: 'failure', createdAt: now, updatedAt: now },
    startedAt: now,
  })
  // 130 legs in attempt 1 (two pages of 100), and one in attempt 2.
  const job = (index: number, attempt: number, conclusion: JobModel['conclusion']): JobModel => ({
    ...{
      id: 10_000 + attempt * 1000 + index,
      runId: RUN_ID,
      runAttempt: attempt,
      name: `loop / verify (leg-${index})`,
    },
    ...{ status: 'completed', conclusion, headSha: 'a'.repeat(40), headBranch: 'main', workflowName: 'loop' },
    ...{ createdAt: now, startedAt: now, completedAt: '2026-11-26T10:01:30Z' },
  })
  for (let index = 0; index < 130; index++) api.model.jobs.push(job(index, 1, index === 3 ? 'failure' : 'success'))
  api.model.jobs.push({ ...job(0, 2, 'cancelled'), log: LOG })
  api.model.jobs.push({ ...job(1, 2, null), status: 'in_progress', completedAt: null, log: null })
})
afterEach(async () => {
  expect(api.violations).toEqual([])
  await api.stop()
  await results.close()
})

const LOG =
  '2026-11-26T10:00:01.0000000Z Run the check\n2026-11-26T10:01:29.0000000Z loop-controller: verdict leg-0 sha256:ab\n'

const github = (token: string, jobLogWaitsMs: readonly number[] = []) =>
  new OctokitGitHub({
    token,
    owner: 'acme',
    repo: 'demo',
    baseUrl: api.url,
    retries: 0,
    throttle: false,
    jobLogWaitsMs,
  })
const logAsks = () => api.exchanges.filter((e) => e.operationId === 'actions/download-job-logs-for-workflow-run')

describe('listRunAttemptJobs', () => {
  it("reads every page of one attempt's jobs, with their names, conclusions and times", async () => {
    const jobs = await github('decide').listRunAttemptJobs(String(RUN_ID), 1)
    expect(jobs).toHaveLength(130)
    expect(jobs[3]).toEqual({
      id: 11_003,
      name: 'loop / verify (leg-3)',
      status: 'completed',
      conclusion: 'failure',
      startedAt: '2026-11-26T10:00:00Z',
      completedAt: '2026-11-26T10:01:30Z',
      runAttempt: 1,
    })
    const pages = api.exchanges.filter((e) => e.operationId === 'actions/list-jobs-for-workflow-run-attempt')
    expect(pages.map((e) => e.status)).toEqual([200, 200])
    expect((await github('decide').listRunAttemptJobs(String(RUN_ID), 2)).map((j) => j.conclusion)).toEqual([
      'cancelled',
      null,
    ])
  })

  it('an attempt the run never made is a 404 error', async () => {
    await expect(github('decide').listRunAttemptJobs(String(RUN_ID), 3)).rejects.toThrow(/\(404\)/)
  })

  it("a token without 'actions' is refused, naming the permission", async () => {
    const refused = github('plan').listRunAttemptJobs(String(RUN_ID), 1)
    await expect(refused).rejects.toBeInstanceOf(GitHubPermissionError)
    await expect(refused).rejects.toThrow(/'actions: read'/)
  })
})

describe('jobLog', () => {
  it("reads a job's log through its 302, as plain text", async () => {
    expect(await github('decide').jobLog(12_000)).toBe(LOG)
    expect(logAsks().map((e) => [e.path, e.status])).toEqual([['/repos/acme/demo/actions/jobs/12000/logs', 302]])
  })

  it('a job still going (no log yet), or none, is a 404 error once every wait is spent', async () => {
    await expect(github('decide', [1, 1]).jobLog(12_001)).rejects.toThrow(/\(404\)/)
    expect(logAsks().map((e) => e.status)).toEqual([404, 404, 404])
    await expect(github('decide').jobLog(1)).rejects.toThrow(/\(404\)/)
  })

  it('a log GitHub has not stored yet when the job is listed as ended is asked for again, and read', async () => {
    const ended = api.model.jobs.find((job) => job.id === 12_001)
    if (!ended) throw new Error('no job 12001')
    Object.assign(ended, { status: 'completed', conclusion: 'success', completedAt: '2026-11-26T10:01:30Z' })
    // The log is stored only once the first ask was answered 404; the wait before the next ask is long
    // enough that the order does not depend on timing.
    const reading = github('decide', [2000]).jobLog(12_001)
    while (logAsks().length === 0) await new Promise((resolve) => setTimeout(resolve, 5))
    Object.assign(ended, { log: LOG })
    expect(await reading).toBe(LOG)
    expect(logAsks().map((e) => e.status)).toEqual([404, 302])
  })

  it("a token without 'actions' is refused, naming the permission", async () => {
    const refused = github('plan').jobLog(12_000)
    await expect(refused).rejects.toBeInstanceOf(GitHubPermissionError)
    await expect(refused).rejects.toThrow(/'actions: read'/)
  })
})

describe('getWorkflowRun', () => {
  it('says whether the run is over, and how it ended', async () => {
    expect(await github('sweeper').getWorkflowRun(String(RUN_ID))).toEqual({
      status: 'completed',
      conclusion: 'failure',
    })
    const going = api.model.runs.get(RUN_ID)
    if (going) Object.assign(going, { status: 'in_progress', conclusion: null })
    expect(await github('sweeper').getWorkflowRun(String(RUN_ID))).toEqual({ status: 'in_progress', conclusion: null })
  })

  it('a run that does not exist is a 404 error', async () => {
    await expect(github('sweeper').getWorkflowRun('999')).rejects.toThrow(/\(404\)/)
  })

  it("a token without 'actions' is refused, naming the permission", async () => {
    const refused = github('plan').getWorkflowRun(String(RUN_ID))
    await expect(refused).rejects.toBeInstanceOf(GitHubPermissionError)
    await expect(refused).rejects.toMatchObject({ permission: expect.stringMatching(/^actions: /) })
  })
})

describe('getIssueState', () => {
  it('says an open issue open and a closed one closed', async () => {
    const issue = api.model.createIssue(api.model.user('acme'), 'Fix it', null)
    expect(await github('sweeper').getIssueState(issue.number)).toBe('open')
    issue.state = 'closed'
    expect(await github('sweeper').getIssueState(issue.number)).toBe('closed')
  })
})
