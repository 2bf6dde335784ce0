// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are GitHub `${{ }}` expressions, not templates
// What GitHub refuses when it reads a workflow file, the sandbox refuses when it reads it, naming the
// file, the job and the key; and expressions fail where GitHub's fail instead of turning into ''.
import { describe, expect, it } from 'vitest'
import { evaluateExpression, interpolate } from '../sandbox/expressions.js'
import { applyOverrides, parseWorkflow } from '../sandbox/workflow-file.js'

/** A one-job workflow with `job` as the job's extra lines and `steps` as its steps. */
const workflow = (options: { top?: string; job?: string; steps?: string; id?: string } = {}) => `on: workflow_dispatch
${options.top ?? ''}jobs:
  ${options.id ?? 'build'}:
${options.job ?? '    runs-on: ubuntu-latest\n'}    steps:
${options.steps ?? '      - run: echo hello\n'}`

/** `count` dispatch inputs `i0`, `i1`, ... under `on.workflow_dispatch.inputs`. */
const dispatchInputs = (count: number) =>
  Array.from({ length: count }, (_, index) => `      i${index}:\n        type: string\n`).join('')

const REFUSED: [string, string, string | RegExp][] = [
  [
    'matrix in a job-level if',
    workflow({ job: '    runs-on: ubuntu-latest\n    if: matrix.x == 1\n' }),
    "sandbox: w.yml: job 'build' jobs.<job_id>.if: Unrecognized named-value: 'matrix' in 'matrix.x == 1' (available here: github, needs, vars, inputs)",
  ],
  [
    'env in a job-level if',
    workflow({ job: "    runs-on: ubuntu-latest\n    if: ${{ env.MODE == 'x' }}\n" }),
    /job 'build' jobs.<job_id>.if: Unrecognized named-value: 'env'/,
  ],
  [
    'a context that does not exist',
    workflow({ steps: "      - if: nosuch.thing == 'a'\n        run: echo\n" }),
    /job 'build' step 1 jobs.<job_id>.steps.if: Unrecognized named-value: 'nosuch'/,
  ],
  [
    'secrets in a step if',
    workflow({ steps: "      - if: secrets.TOKEN != ''\n        run: echo\n" }),
    /steps.if: Unrecognized named-value: 'secrets'/,
  ],
  [
    'a status function outside an if',
    workflow({ steps: '      - run: echo ${{ success() }}\n' }),
    /steps.run: Unrecognized function: 'success'/,
  ],
  [
    'an unknown function',
    workflow({ steps: "      - run: echo ${{ toUpper('a') }}\n" }),
    /steps.run: Unrecognized function: 'toupper'/,
  ],
  [
    'steps in a workflow-level concurrency group',
    workflow({ top: 'concurrency: g-${{ steps.x.outputs.y }}\n' }),
    "sandbox: w.yml: concurrency: Unrecognized named-value: 'steps' in 'steps.x.outputs.y' (available here: github, inputs, vars)",
  ],
  [
    'a misspelt concurrency key',
    workflow({ top: 'concurrency:\n  group: g\n  cancel-in-progres: true\n' }),
    "sandbox: w.yml: concurrency: unknown key 'cancel-in-progres' (GitHub takes group, cancel-in-progress, queue)",
  ],
  [
    'queue: max with cancel-in-progress: true',
    workflow({
      job: '    runs-on: ubuntu-latest\n    concurrency:\n      group: g\n      cancel-in-progress: true\n      queue: max\n',
    }),
    "sandbox: w.yml: job 'build' concurrency: the combination of 'queue: max' and 'cancel-in-progress: true' is not allowed",
  ],
  [
    'a concurrency without a group',
    workflow({ top: 'concurrency:\n  cancel-in-progress: true\n' }),
    "sandbox: w.yml: concurrency: 'group' is required",
  ],
  [
    'a cancel-in-progress that is neither true, false nor an expression',
    workflow({ top: 'concurrency:\n  group: g\n  cancel-in-progress: sometimes\n' }),
    "sandbox: w.yml: concurrency.cancel-in-progress: takes true, false or an expression; got 'sometimes'",
  ],
  [
    'a queue GitHub does not have',
    workflow({ job: '    runs-on: ubuntu-latest\n    concurrency:\n      group: g\n      queue: all\n' }),
    `sandbox: w.yml: job 'build' concurrency.queue: takes 'single' or 'max'; got "all"`,
  ],
  [
    'a misspelt permission scope',
    workflow({ job: '    runs-on: ubuntu-latest\n    permissions:\n      contnts: read\n' }),
    /job 'build' permissions: unknown scope 'contnts' \(GitHub's scopes: actions, attestations,/,
  ],
  [
    'a permission level GitHub does not have',
    workflow({ top: 'permissions:\n  contents: admin\n' }),
    'sandbox: w.yml: permissions.contents: "admin" is not one of read, write, none',
  ],
  [
    'id-token: read',
    workflow({ top: 'permissions:\n  id-token: read\n' }),
    'sandbox: w.yml: permissions.id-token: "read" is not one of write, none',
  ],
  [
    'a job without runs-on',
    workflow({ job: '' }),
    "sandbox: w.yml: job 'build': Required property is missing: runs-on",
  ],
  [
    'a step id used twice',
    workflow({ steps: '      - id: same\n        run: echo 1\n      - id: same\n        run: echo 2\n' }),
    "sandbox: w.yml: job 'build' step 2 id: The identifier 'same' may not be used more than once within the same scope.",
  ],
  ['a job id starting with a digit', workflow({ id: '1build' }), /job '1build': The identifier '1build' is invalid/],
  ['a job id with a dot', workflow({ id: 'build.all' }), /job 'build.all': The identifier 'build.all' is invalid/],
  [
    'a step id with a space',
    workflow({ steps: "      - id: 'two words'\n        run: echo\n" }),
    /step 1 id: The identifier 'two words' is invalid/,
  ],
  [
    'upload-artifact v3 (deprecated: GitHub fails the job)',
    workflow({ steps: '      - uses: actions/upload-artifact@v3\n        with:\n          path: out\n' }),
    "sandbox: w.yml: job 'build' step 1 uses: This request has been automatically failed because it uses a deprecated version of `actions/upload-artifact: v3` (use v4 or later)",
  ],
  [
    'download-artifact v1',
    workflow({ steps: '      - uses: actions/download-artifact@v1.0.0\n' }),
    /deprecated version of `actions\/download-artifact: v1`/,
  ],
  [
    'a checkout major that does not exist',
    workflow({ steps: '      - uses: actions/checkout@v99\n' }),
    "sandbox: w.yml: job 'build' step 1 uses: Unable to resolve action `actions/checkout@v99`, unable to find version `v99` (actions/checkout has v1 to v7)",
  ],
  [
    'upload-artifact v8 (only download-artifact has a v8)',
    workflow({ steps: '      - uses: actions/upload-artifact@v8\n' }),
    /unable to find version `v8` \(actions\/upload-artifact has v1 to v7\)/,
  ],
  [
    'a modelled action pinned by commit',
    workflow({ steps: '      - uses: actions/checkout@8e5e7e5ab8b370d6c329ec480221332ada57f0ab\n' }),
    /the engine models actions\/checkout by its version; pin a tag/,
  ],
  [
    'an expression in permissions',
    workflow({ top: 'permissions:\n  contents: ${{ inputs.level }}\n' }),
    /sandbox: w.yml: permissions: GitHub evaluates no expression here/,
  ],
  [
    'continue-on-error as an expression (the engine would read it as false)',
    workflow({ steps: '      - run: exit 1\n        continue-on-error: ${{ inputs.lenient }}\n' }),
    /continue-on-error: the workflow engine takes true or false/,
  ],
  [
    'matrix in workflow_call outputs',
    `on:\n  workflow_call:\n    outputs:\n      x:\n        value: \${{ matrix.y }}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo\n`,
    /workflow_call outputs 'x' on.workflow_call.outputs.<output_id>.value: Unrecognized named-value: 'matrix'/,
  ],
  [
    'an event that does not exist',
    workflow().replace('on: workflow_dispatch', 'on: [workflow_dispatch, pul_request]'),
    "sandbox: w.yml: on: unknown event 'pul_request'",
  ],
  [
    'a misspelt activity type (the workflow would never run on it)',
    workflow().replace('on: workflow_dispatch', 'on:\n  issues:\n    types: [labled]'),
    /sandbox: w.yml: on.issues.types: unknown activity type 'labled' \(opened, edited,/,
  ],
  [
    'a timeout that is no number',
    workflow({ job: '    runs-on: ubuntu-latest\n    timeout-minutes: ten\n' }),
    "sandbox: w.yml: job 'build' timeout-minutes: takes a number or an expression; got 'ten'",
  ],
  [
    'fail-fast as a word',
    workflow({
      job: '    runs-on: ubuntu-latest\n    strategy:\n      fail-fast: no\n      matrix:\n        a: [1]\n',
    }),
    /strategy.fail-fast: takes true, false or an expression; got 'no'/,
  ],
  [
    'a misspelt key of a dispatch input (its default would be lost)',
    workflow().replace(
      'on: workflow_dispatch',
      "on:\n  workflow_dispatch:\n    inputs:\n      step:\n        defualt: '1'",
    ),
    "sandbox: w.yml: on.workflow_dispatch.inputs.step: unknown key 'defualt' (GitHub takes description, required, default, type, options)",
  ],
  [
    'a dispatch input type that does not exist',
    workflow().replace(
      'on: workflow_dispatch',
      'on:\n  workflow_dispatch:\n    inputs:\n      step:\n        type: text',
    ),
    /on.workflow_dispatch.inputs.step: type 'text' is not one of string, boolean, number, choice, environment/,
  ],
  [
    'a choice whose default is not an option',
    workflow().replace(
      'on: workflow_dispatch',
      'on:\n  workflow_dispatch:\n    inputs:\n      mode:\n        type: choice\n        options: [a, b]\n        default: c',
    ),
    /on.workflow_dispatch.inputs.mode: the default 'c' is not one of its options/,
  ],
  [
    'more than 25 dispatch inputs',
    workflow().replace('on: workflow_dispatch', `on:\n  workflow_dispatch:\n    inputs:\n${dispatchInputs(26)}`),
    'sandbox: w.yml: on.workflow_dispatch.inputs: you may only define up to 25 `inputs` for a `workflow_dispatch` event (got 26)',
  ],
  [
    'a misspelt key of a workflow_call secret',
    workflow().replace(
      'on: workflow_dispatch',
      'on:\n  workflow_call:\n    secrets:\n      TOKEN:\n        requird: true',
    ),
    /on.workflow_call.secrets.TOKEN: unknown key 'requird'/,
  ],
]

describe('a workflow file GitHub would reject', () => {
  it.each(REFUSED)('is refused when read: %s', (_, text, message) => {
    expect(() => parseWorkflow('w.yml', text)).toThrow(message)
  })

  it('reads what GitHub accepts in the same places', () => {
    const accepted = workflow({
      top: 'permissions:\n  contents: read\n  id-token: none\n  models: read\nconcurrency:\n  group: g-${{ github.ref }}\n  cancel-in-progress: ${{ inputs.cancel }}\n',
      job: '    runs-on: ubuntu-latest\n    if: ${{ !cancelled() && needs == needs && vars.X != inputs.y }}\n    strategy:\n      matrix:\n        leg: [1, 2]\n    name: leg ${{ matrix.leg }} of ${{ strategy.job-total }}\n',
      steps:
        "      - id: _first-step\n        if: failure() || steps._first-step.outcome == '' || env.A == job.status\n        env:\n          A: ${{ secrets.S }}\n        run: echo ${{ runner.temp }} ${{ format('{0}', matrix.leg) }}\n      - uses: actions/download-artifact@v8\n      - uses: actions/upload-artifact@v7.0.1\n        with:\n          path: out\n      - uses: actions/checkout@v7\n",
    })
    expect(parseWorkflow('w.yml', accepted).workflowConcurrency).toEqual({
      group: 'g-${{ github.ref }}',
      cancelInProgress: '${{ inputs.cancel }}',
    })
  })

  it('reads 25 dispatch inputs, the most GitHub takes', () => {
    const text = workflow().replace(
      'on: workflow_dispatch',
      `on:\n  workflow_dispatch:\n    inputs:\n${dispatchInputs(25)}`,
    )
    expect(Object.keys(parseWorkflow('w.yml', text).inputs ?? {})).toHaveLength(25)
  })

  it("holds a test's overrides to the same rules", () => {
    const parsed = parseWorkflow('w.yml', workflow())
    expect(() => applyOverrides(parsed, { file: 'w.yml', if: "steps.x.outcome == 'success'" })).toThrow(
      "sandbox: w.yml (override) jobs.<job_id>.if: Unrecognized named-value: 'steps'",
    )
  })
})

describe('expressions', () => {
  it("refuse a name that is no context instead of reading it as ''", () => {
    expect(() => evaluateExpression("nosuch.thing == 'a'", { github: {} })).toThrow(
      "Unrecognized named-value: 'nosuch'. Located at position 1 within expression: nosuch.thing == 'a'",
    )
    expect(() => interpolate('x${{ github.ref }}${{ matrix.leg }}', { github: { ref: 'r' } })).toThrow(
      "Unrecognized named-value: 'matrix'",
    )
    // A missing property of a context that exists is null, as on GitHub.
    expect(interpolate('[${{ vars.NOPE }}]', { vars: {} })).toBe('[]')
  })

  it('format as GitHub formats: escaped braces, and an error for a missing argument or a lone brace', () => {
    expect(evaluateExpression("format('{0}-{1}', 'a', 2)", {})).toBe('a-2')
    expect(evaluateExpression("format('{{{0}}} {{x}}', 'a')", {})).toBe('{a} {x}')
    expect(evaluateExpression("format('{0}{1}', null, fromJSON('[1]'))", {})).toBe('Array')
    expect(() => evaluateExpression("format('{0}-{1}', 'a')", {})).toThrow(
      "The following format string references more arguments than were supplied: '{0}-{1}'",
    )
    expect(() => evaluateExpression("format('{0', 'a')", {})).toThrow("The following format string is invalid: '{0'")
    expect(() => evaluateExpression("format('a}', 'a')", {})).toThrow("The following format string is invalid: 'a}'")
  })
})
