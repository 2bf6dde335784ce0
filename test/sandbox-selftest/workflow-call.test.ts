// A job that `uses:` a reusable workflow: the called workflow's jobs run in the caller's run, with the
// caller's event and `github` context, `with:` as typed `inputs`, the secrets passed (or inherited),
// the calling job's permissions (a called job asking for more makes the run invalid), and the workflow's
// `outputs` read back as needs outputs.
import { describe, expect, it } from 'vitest'
import { excessCalledPermissions } from '../sandbox/token-permissions.js'
import type { JobRecord } from '../sandbox/workflow-engine.js'
import { parseWorkflow } from '../sandbox/workflow-file.js'
import { sandboxPerTest } from './fixtures.js'

const sandboxes = sandboxPerTest()

const REUSABLE = `name: reusable
on:
  workflow_call:
    inputs:
      greeting:
        type: string
        required: true
      count:
        type: number
        default: 1
      loud:
        type: boolean
        default: false
    secrets:
      TOKEN_A:
        required: false
    outputs:
      said:
        value: \${{ jobs.speak.outputs.said }}
jobs:
  speak:
    runs-on: ubuntu-latest
    outputs:
      said: \${{ steps.say.outputs.said }}
    steps:
      - id: say
        env:
          SECRET: \${{ secrets.TOKEN_A }}
        run: |
          echo "said=\${{ inputs.greeting }} x\${{ inputs.count }} loud=\${{ inputs.loud }} secret=\${#SECRET} on \${{ github.event_name }} from $GITHUB_WORKFLOW_REF" >> "$GITHUB_OUTPUT"
`

const CALLER = `name: caller
on:
  workflow_dispatch:
    inputs:
      who:
        type: string
        default: world
permissions:
  contents: write
  actions: read
jobs:
  call:
    permissions:
      contents: read
      issues: write
    uses: ./.github/workflows/reusable.yml
    with:
      greeting: hello \${{ inputs.who }}
      count: 3
    secrets:
      TOKEN_A: \${{ secrets.A }}
  call-inherit:
    needs: call
    uses: ./.github/workflows/reusable.yml
    with:
      greeting: \${{ needs.call.outputs.said }}
      loud: true
    secrets: inherit
  report:
    needs: [call, call-inherit]
    runs-on: ubuntu-latest
    steps:
      - run: echo "\${{ needs.call-inherit.outputs.said }} | \${{ needs.call.result }}"
`

const start = (caller: string) =>
  sandboxes.start('caller.yml', caller, { workflows: { 'reusable.yml': REUSABLE }, secrets: { A: 'sekrit' } })

const byName = (jobs: readonly JobRecord[]) => Object.fromEntries(jobs.map((job) => [job.name, job]))

describe('workflow_call', () => {
  it("runs the called workflow's jobs in the caller's run with typed inputs, secrets, the caller's permissions and outputs", async () => {
    const sandbox = await start(CALLER)
    const { runId } = await sandbox.dispatch({})
    const jobs = await sandbox.waitForIdle(30_000)
    const named = byName(jobs)
    const from = 'from acme/demo/.github/workflows/caller.yml@refs/heads/main'

    expect(jobs.map((j) => [j.name, j.conclusion, j.runId])).toEqual([
      ['call / speak', 'success', runId],
      ['call-inherit / speak', 'success', runId],
      ['report', 'success', runId],
    ])
    const first = `hello world x3 loud=false secret=6 on workflow_dispatch ${from}`
    expect(named['call / speak']?.jobOutputs).toEqual({ said: first })
    expect(named['call-inherit / speak']?.jobOutputs).toEqual({
      said: `${first} x1 loud=true secret=0 on workflow_dispatch ${from}`,
    })
    expect(named.report?.stdout).toBe(`${first} x1 loud=true secret=0 on workflow_dispatch ${from} | success\n`)
    // The called job asks for no permissions: it gets its calling job's (the job's own, else its workflow's).
    expect(named['call / speak']?.permissions).toEqual({ contents: 'read', issues: 'write' })
    expect(named['call-inherit / speak']?.permissions).toEqual({ contents: 'write', actions: 'read' })
    expect(named['call / speak']?.env.GITHUB_JOB).toBe('speak')
    expect(sandbox.engine.problems).toEqual([])
    expect(sandbox.api.violations).toEqual([])
  })

  it('refuses the whole run, no job started, when a called job asks for more than its calling job grants', async () => {
    const reusable = `on: workflow_call
jobs:
  w:
    runs-on: ubuntu-latest
    permissions:
      contents: write
      pull-requests: write
      issues: none
    steps:
      - run: echo hi
`
    const caller = `name: caller
on: workflow_dispatch
permissions: {}
jobs:
  before:
    runs-on: ubuntu-latest
    steps:
      - run: echo before
  call:
    permissions:
      contents: read
    uses: ./.github/workflows/r.yml
`
    const sandbox = await sandboxes.start('caller.yml', caller, { workflows: { 'r.yml': reusable } })
    const { runId } = await sandbox.dispatch({})
    const jobs = await sandbox.waitForIdle(30_000)

    expect(jobs).toEqual([])
    expect(sandbox.api.model.runs.get(runId)).toMatchObject({ status: 'completed', conclusion: 'startup_failure' })
    expect(sandbox.engine.problems).toEqual([
      `run ${runId}: The workflow is not valid. .github/workflows/caller.yml: Error calling workflow './.github/workflows/r.yml'. The nested job 'w' is requesting 'contents: write, pull-requests: write', but is only allowed 'contents: read, pull-requests: none'.`,
    ])
  })

  it("gives a called job that asks for less its own permissions, and a job that asks for none the repository's default", async () => {
    const reusable = `on: workflow_call
jobs:
  lower:
    runs-on: ubuntu-latest
    permissions:
      contents: read
    steps:
      - run: echo lower
  same:
    runs-on: ubuntu-latest
    steps:
      - run: echo same
`
    const caller = `name: caller
on: workflow_dispatch
jobs:
  plain:
    runs-on: ubuntu-latest
    steps:
      - run: echo plain
  call:
    uses: ./.github/workflows/r.yml
`
    const sandbox = await sandboxes.start('caller.yml', caller, {
      workflows: { 'r.yml': reusable },
      defaultWorkflowPermissions: 'read',
    })
    await sandbox.dispatch({})
    const jobs = await sandbox.waitForIdle(30_000)

    // The restricted default ("Read repository contents and packages permissions").
    const restricted = { contents: 'read', packages: 'read' }
    expect(jobs.map((job) => [job.name, job.conclusion, job.permissions])).toEqual([
      ['plain', 'success', restricted],
      ['call / lower', 'success', { contents: 'read' }],
      ['call / same', 'success', restricted],
    ])
    expect(sandbox.engine.problems).toEqual([])
  })

  it("refuses a called workflow's top-level permissions above its caller's, at any depth", () => {
    const files: Record<string, string> = {
      'mid.yml': `on: workflow_call
permissions:
  issues: write
  actions: read
jobs:
  fine:
    runs-on: ubuntu-latest
    steps:
      - run: echo fine
  deeper:
    uses: ./.github/workflows/leaf.yml
`,
      'leaf.yml': `on: workflow_call
permissions:
  actions: write
jobs:
  leaf:
    runs-on: ubuntu-latest
    steps:
      - run: echo leaf
`,
    }
    const read = (uses: string) => {
      const file = uses.replace('./.github/workflows/', '')
      return parseWorkflow(file, files[file] ?? '')
    }
    const caller = (permissions: string) =>
      parseWorkflow(
        'caller.yml',
        `on: workflow_dispatch\npermissions:\n${permissions}\njobs:\n  call:\n    uses: ./.github/workflows/mid.yml\n`,
      )

    // mid's jobs take its top-level permissions; its call passes them on to leaf, which asks for more.
    expect(excessCalledPermissions(caller('  issues: write\n  actions: write'), {}, read, 9)).toBe(
      "Error calling workflow './.github/workflows/leaf.yml'. The nested job 'leaf' is requesting 'actions: write', but is only allowed 'actions: read'.",
    )
    expect(excessCalledPermissions(caller('  issues: read\n  actions: read'), {}, read, 9)).toBe(
      "Error calling workflow './.github/workflows/mid.yml'. The nested job 'fine' is requesting 'issues: write', but is only allowed 'issues: read'.",
    )
  })

  it('fails a call GitHub would refuse, naming why: an undeclared input, a missing required one, a foreign workflow', async () => {
    const sandbox = await start(`name: caller
on: workflow_dispatch
jobs:
  undeclared:
    uses: ./.github/workflows/reusable.yml
    with:
      greeting: hi
      colour: red
  missing:
    uses: ./.github/workflows/reusable.yml
  foreign:
    uses: octo/elsewhere/.github/workflows/build.yml@v1
`)
    const { runId } = await sandbox.dispatch({})
    const named = byName(await sandbox.waitForIdle(30_000))

    expect(named['undeclared / speak']?.conclusion).toBe('failure')
    expect(named['missing / speak']?.conclusion).toBe('failure')
    expect(named.foreign?.conclusion).toBe('failure')
    expect([...sandbox.engine.problems].sort()).toEqual([
      `run ${runId} job 'foreign': job 'foreign': the workflow engine runs reusable workflows of this repository or of loop-controller; not octo/elsewhere/.github/workflows/build.yml@v1`,
      `run ${runId} job 'missing': Input greeting is required, but not provided while calling.`,
      `run ${runId} job 'undeclared': Invalid input, colour is not defined in the referenced workflow.`,
    ])
    expect(sandbox.api.model.runs.get(runId)?.conclusion).toBe('failure')
  })

  it('takes with: values typed as GitHub types them: YAML literals and expressions` results, never a string for a boolean or a number', async () => {
    const sandbox = await sandboxes.start(
      'caller.yml',
      `name: caller
on:
  workflow_dispatch:
    inputs:
      flag:
        type: boolean
        default: false
      n:
        type: number
        default: 1
jobs:
  literals:
    uses: ./.github/workflows/reusable.yml
    with: { greeting: literals, count: 3, loud: true }
  expressions:
    uses: ./.github/workflows/reusable.yml
    with:
      greeting: \${{ inputs.flag }}
      count: \${{ inputs.n }}
      loud: \${{ inputs.flag }}
  comparison:
    uses: ./.github/workflows/reusable.yml
    with:
      greeting: 7
      loud: \${{ github.event.inputs.flag == 'true' }}
  quoted-boolean:
    uses: ./.github/workflows/reusable.yml
    with: { greeting: hi, loud: 'false' }
  event-input:
    uses: ./.github/workflows/reusable.yml
    with: { greeting: hi, loud: '\${{ github.event.inputs.flag }}' }
  quoted-number:
    uses: ./.github/workflows/reusable.yml
    with: { greeting: hi, count: '3' }
  nothing:
    uses: ./.github/workflows/reusable.yml
    with: { greeting: hi, loud: '\${{ vars.UNSET }}' }
`,
      { workflows: { 'reusable.yml': REUSABLE } },
    )
    const { runId } = await sandbox.dispatch({ flag: 'true', n: '2' })
    const named = byName(await sandbox.waitForIdle(30_000))

    const said = (name: string) => named[`${name} / speak`]?.jobOutputs.said?.replace(/ on .*/, '')
    expect([said('literals'), said('expressions'), said('comparison')]).toEqual([
      'literals x3 loud=true secret=0',
      'true x2 loud=true secret=0',
      '7 x1 loud=true secret=0',
    ])
    const failed = ['quoted-boolean', 'event-input', 'quoted-number', 'nothing']
    expect(failed.map((name) => named[`${name} / speak`]?.conclusion)).toEqual(failed.map(() => 'failure'))
    const why = (job: string, message: string) =>
      `run ${runId} job '${job}': evaluate reusable workflow inputs: input '${message}`
    expect([...sandbox.engine.problems].sort()).toEqual([
      why('event-input', "loud': Unexpected value 'true'"),
      why('nothing', "loud': Unexpected type of value '', expected type: Boolean."),
      why('quoted-boolean', "loud': Unexpected value 'false'"),
      why('quoted-number', "count': Unexpected value '3'"),
    ])
  })

  it('runs ten levels of workflows, the caller and nine reusable ones, and fails a call that would be the eleventh', async () => {
    // level0 → level1 → … → level9; level9 runs a job. `ok` calls level1 (ten levels), `too-deep` level0.
    const levels = Object.fromEntries(
      Array.from({ length: 9 }, (_, level) => [
        `level${level}.yml`,
        `on: workflow_call\njobs:\n  next:\n    uses: ./.github/workflows/level${level + 1}.yml\n`,
      ]),
    )
    levels['level9.yml'] =
      'on: workflow_call\njobs:\n  work:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo deep\n'
    const caller = `name: caller
on: workflow_dispatch
jobs:
  ok:
    uses: ./.github/workflows/level1.yml
  too-deep:
    uses: ./.github/workflows/level0.yml
`
    const sandbox = await sandboxes.start('caller.yml', caller, { workflows: levels })
    const { runId } = await sandbox.dispatch({})
    const jobs = await sandbox.waitForIdle(30_000)

    const eightCalls = Array(8).fill('next').join(' / ')
    // No `permissions:` anywhere: GitHub's permissive default, every scope read and write but models
    // (read) and id-token (none).
    const write = ['actions', 'attestations', 'checks', 'contents', 'deployments', 'discussions', 'issues']
    write.push('packages', 'pages', 'pull-requests', 'repository-projects', 'security-events', 'statuses')
    expect(jobs[0]?.permissions).toEqual({
      ...Object.fromEntries(write.map((scope) => [scope, 'write'])),
      models: 'read',
    })
    expect(jobs.map((job) => [job.name, job.conclusion, job.stdout])).toEqual([
      [`ok / ${eightCalls} / work`, 'success', 'deep\n'],
      [`too-deep / ${eightCalls} / next`, 'failure', ''],
    ])
    expect(sandbox.engine.problems).toEqual([
      `run ${runId} job 'too-deep / ${eightCalls} / next': job 'next': GitHub connects at most ten levels of workflows; ./.github/workflows/level9.yml would be the eleventh`,
    ])
  })
})
