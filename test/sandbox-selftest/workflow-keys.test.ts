// Keys the engine models as GitHub does rather than accepting and ignoring: `run-name` (the run's
// display_title), `strategy.fail-fast` from an expression (a boolean, or the job fails), `permissions:
// read-all|write-all` (every scope GitHub lists), and `<`, `>`, `<=`, `>=` (strings ordinally, ignoring
// case; mixed types as numbers).
import { describe, expect, it } from 'vitest'
import { evaluateExpression } from '../sandbox/workflow-file.js'
import { sandboxPerTest } from './fixtures.js'

const sandboxes = sandboxPerTest()

const INPUTS = `  workflow_dispatch:
    inputs:
      target:
        type: string
        default: staging
      text:
        type: string
        default: 'false'
      flag:
        type: boolean
        default: false
`

describe('keys modelled as GitHub does', () => {
  it('titles a run with its run-name, evaluated with github and inputs; without one, the workflow`s name', async () => {
    const titled = `name: deploy
run-name: Deploy \${{ inputs.target }} by @\${{ github.actor }}
on:
${INPUTS}jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: echo hi
`
    const sandbox = await sandboxes.start('deploy.yml', titled, {
      workflows: {
        'plain.yml':
          'name: plain\non: workflow_dispatch\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo hi\n',
      },
    })
    const { runId } = await sandbox.dispatch({ target: 'production' })
    const plain = await fetch(`${sandbox.api.url}/repos/acme/demo/actions/workflows/plain.yml/dispatches`, {
      method: 'POST',
      headers: { authorization: `token ${sandbox.tokenOf('acme')}` },
      body: JSON.stringify({ ref: 'main', return_run_details: true }),
    })
    const plainRun = ((await plain.json()) as { workflow_run_id: number }).workflow_run_id
    await sandbox.waitForIdle(20_000)
    const title = async (id: number) => {
      const response = await fetch(`${sandbox.api.url}/repos/acme/demo/actions/runs/${id}`, {
        headers: { authorization: `token ${sandbox.tokenOf('acme')}` },
      })
      const run = (await response.json()) as { name: string; display_title: string }
      return [run.name, run.display_title]
    }
    expect(await title(runId)).toEqual(['deploy', 'Deploy production by @acme'])
    expect(await title(plainRun)).toEqual(['plain', 'plain'])
    expect(sandbox.api.violations).toEqual([])
  })

  it('takes fail-fast from an expression only as a boolean: a string fails the job, a boolean input turns it off', async () => {
    const matrix = (failFast: string) => `    runs-on: ubuntu-latest
    strategy:
      fail-fast: ${failFast}
      matrix:
        leg: [fails, passes]
    steps:
      - run: if [ "\${{ matrix.leg }}" = fails ]; then exit 1; fi; sleep 1
`
    const sandbox = await sandboxes.start(
      'legs.yml',
      `name: legs
on:
${INPUTS}jobs:
  from-text:
${matrix(`\${{ inputs.text }}`)}  from-flag:
${matrix(`\${{ inputs.flag }}`)}`,
    )
    const { runId } = await sandbox.dispatch({})
    const jobs = await sandbox.waitForIdle(20_000)

    expect(jobs.map((job) => [job.name, job.conclusion]).sort()).toEqual([
      ['from-flag (fails)', 'failure'],
      ['from-flag (passes)', 'success'],
      ['from-text', 'failure'],
    ])
    expect(sandbox.engine.problems).toEqual([
      `run ${runId} job 'from-text': strategy.fail-fast: Unexpected value 'false'`,
    ])
  })

  it('grants every scope GitHub lists for read-all and write-all', async () => {
    const job = (id: string, permissions: string) =>
      `  ${id}:\n    runs-on: ubuntu-latest\n    permissions: ${permissions}\n    steps:\n      - run: echo hi\n`
    const sandbox = await sandboxes.start(
      'perms.yml',
      `name: perms\non: workflow_dispatch\njobs:\n${job('reader', 'read-all')}${job('writer', 'write-all')}`,
    )
    await sandbox.dispatch({})
    const jobs = await sandbox.waitForIdle(20_000)
    const scopes = [
      'actions',
      'attestations',
      'checks',
      'contents',
      'deployments',
      'discussions',
      'issues',
      'packages',
      'pages',
      'pull-requests',
      'repository-projects',
      'security-events',
      'statuses',
    ]
    const at = (level: string) => Object.fromEntries(scopes.map((scope) => [scope, level]))
    expect(jobs.map((j) => j.permissions)).toEqual([
      { ...at('read'), models: 'read' },
      { ...at('write'), 'id-token': 'write', models: 'read' },
    ])
  })

  it('refuses a dispatch whose number input is no number (422), and types a number input as a number', async () => {
    const sandbox = await sandboxes.start(
      'count.yml',
      `name: count
on:
  workflow_dispatch:
    inputs:
      n:
        type: number
        default: 1
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: echo '\${{ toJSON(inputs.n) }} \${{ inputs.n > 2 }} \${{ toJSON(github.event.inputs.n) }}'
`,
    )
    await expect(sandbox.dispatch({ n: 'abc' })).rejects.toThrow(
      /answered 422: .*Provided value 'abc' for input 'n' is not a valid number/,
    )
    await sandbox.dispatch({ n: '2.5' })
    const jobs = await sandbox.waitForIdle(20_000)
    expect(jobs.map((job) => job.stdout)).toEqual(['2.5 true "2.5"\n'])
    expect(sandbox.api.violations).toEqual([])
  })

  it('refuses (422) a dispatch input the workflow does not declare, also when it declares none', async () => {
    const sandbox = await sandboxes.start(
      'plain.yml',
      `name: plain
on: workflow_dispatch
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: echo '\${{ toJSON(github.event.inputs) }}'
`,
    )
    await expect(sandbox.dispatch({ bogus: 'x' })).rejects.toThrow(
      /answered 422: .*Unexpected inputs provided: \[\\"bogus\\"\]/,
    )
    expect(sandbox.jobs).toEqual([])
    await sandbox.dispatch({})
    const jobs = await sandbox.waitForIdle(20_000)
    expect(jobs.map((job) => job.stdout)).toEqual(['{}\n'])
    expect(sandbox.api.violations).toEqual([])
  })

  it.each([
    ["'a' < 'b'", true],
    ["'B' > 'a'", true],
    ["'abc' <= 'ABC'", true],
    ["'abc' < 'ABC'", false],
    ["'10' < '9'", true],
    ["'10' < 9", false],
    ['2 >= 1', true],
    ["'' < 1", true],
    ['true > false', true],
    ["null < 'a'", false],
    ["'abc' > 0", false],
    ["'abc' < 0", false],
    ["fromJSON('[1]') < 2", false],
    ["'0x10' == 16", false],
    ["' 3 ' == 3", true],
  ])('evaluates %s as %s', (expression, expected) => {
    expect(evaluateExpression(expression, {})).toBe(expected)
  })
})
