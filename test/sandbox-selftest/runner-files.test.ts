// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are GitHub `${{ }}` expressions, not templates
import { describe, expect, it } from 'vitest'
import { parseFileCommands, parseWorkflowCommands } from '../sandbox/runner-files.js'
import { evaluateCondition, evaluateExpression, interpolate, parseWorkflow } from '../sandbox/workflow-file.js'
import { LOOP_WORKFLOW } from './fixtures.js'

describe('file commands', () => {
  it('reads name=value lines and heredocs as the runner does', () => {
    const text = 'a=1\nmulti<<EOF_1\nline 1\n\nline=3\nEOF_1\nb=x=y\n'
    expect(parseFileCommands(text, 'GITHUB_OUTPUT')).toEqual({ a: '1', multi: 'line 1\n\nline=3', b: 'x=y' })
  })

  it('fails naming the file and delimiter when a heredoc never closes', () => {
    expect(() => parseFileCommands('x<<END\nvalue\n', 'GITHUB_STATE')).toThrow(
      "GITHUB_STATE: matching delimiter 'END' not found for 'x'",
    )
    expect(() => parseFileCommands('just text\n', 'GITHUB_ENV')).toThrow("GITHUB_ENV: line 1 is neither 'name=value'")
  })
})

describe('workflow commands on stdout', () => {
  it('parses annotations with escaped properties and messages, masks, and honours stop-commands', () => {
    const stdout = [
      '::error file=src/a%2Cb.ts,line=4,endLine=5,col=1,title=T%3A x::first%0Asecond 100%25',
      '::add-mask::hunter2',
      '::stop-commands::pause-token',
      '::error::ignored while stopped',
      '::pause-token::',
      '::notice::back',
      '::eror::typo',
    ].join('\n')
    expect(parseWorkflowCommands(stdout)).toEqual({
      annotations: [
        {
          level: 'error',
          message: 'first\nsecond 100%',
          file: 'src/a,b.ts',
          line: 4,
          endLine: 5,
          col: 1,
          title: 'T: x',
        },
        { level: 'notice', message: 'back' },
      ],
      masks: ['hunter2'],
      unknown: ['::eror::typo'],
    })
  })
})

describe('workflow files and expressions', () => {
  it('evaluates job conditions like the example workflows use', () => {
    const condition = `\${{
      github.event_name == 'workflow_dispatch' ||
      (github.event_name == 'issue_comment' && github.event.issue.pull_request && contains(github.event.comment.body, '/LOOP') && github.event.comment.user.type != 'Bot')
    }}`
    const comment = (body: string, type: string, pull: unknown) => ({
      github: {
        event_name: 'issue_comment',
        event: { issue: { pull_request: pull }, comment: { body, user: { type } } },
      },
    })
    expect(evaluateCondition(condition, { github: { event_name: 'workflow_dispatch' } })).toBe(true)
    expect(evaluateCondition(condition, comment('/loop resume', 'User', { url: 'u' }))).toBe(true)
    expect(evaluateCondition(condition, comment('/loop resume', 'Bot', { url: 'u' }))).toBe(false)
    expect(evaluateCondition(condition, comment('/loop resume', 'User', undefined))).toBe(false)
    expect(evaluateCondition(condition, comment('thanks!', 'User', { url: 'u' }))).toBe(false)
    expect(
      evaluateCondition("startsWith(github.head_ref, 'loop/') && !endsWith(github.head_ref, '-x')", {
        github: { head_ref: 'loop/a' },
      }),
    ).toBe(true)
    expect(
      evaluateCondition('contains(fromJSON(\'["a","b"]\'), inputs[\'loop-id\'])', { inputs: { 'loop-id': 'B' } }),
    ).toBe(true) // Object filters, as GitHub documents them: `fruits.*.name` is every fruit's name.
    const labelled = (...names: string[]) => ({
      github: { event: { issue: { labels: names.map((name) => ({ name })) } } },
    })
    const dashboardEdit = "contains(github.event.issue.labels.*.name, 'loop/dashboard')"
    expect(evaluateCondition(dashboardEdit, labelled('bug', 'loop/dashboard'))).toBe(true)
    expect(evaluateCondition(dashboardEdit, labelled('bug'))).toBe(false)
    expect(evaluateCondition(dashboardEdit, labelled())).toBe(false)
    expect(evaluateExpression('fruits.*.name', { fruits: [{ name: 'apple' }, { name: 'pear' }, { size: 2 }] })).toEqual(
      ['apple', 'pear'],
    )
    expect(evaluateExpression('vegetables.*.portions', { vegetables: { a: { portions: ['roots'] } } })).toEqual([
      ['roots'],
    ])
    expect(evaluateExpression('nothing.*.name', { nothing: null })).toEqual([])
  })

  it('reads triggers, dispatch inputs, concurrency, permissions and the action step', () => {
    const spec = parseWorkflow('loop.yml', LOOP_WORKFLOW)
    expect(spec).toMatchObject({
      file: 'loop.yml',
      name: 'loop',
      on: ['workflow_dispatch', 'issue_comment', 'pull_request_review', 'pull_request_target'],
      inputs: { step: { required: true, default: '1' }, 'chain-length': { required: false, default: '3' } },
      concurrency: 'loop-${{ github.ref }}',
      cancelInProgress: false,
      permissions: { contents: 'write', actions: 'write', issues: 'write', 'pull-requests': 'write' },
      job: 'loop',
      fetchDepth: 0,
    })
    expect(spec.with).toEqual({
      step: "${{ inputs.step || '1' }}",
      'chain length': "${{ inputs.chain-length || '1' }}",
      'delay-ms': '${{ vars.DELAY_MS }}',
      store: '${{ vars.STORE }}',
    })
  })

  it('evaluates the expressions such workflows use', () => {
    const context = {
      github: { ref: 'refs/heads/main', event: { issue: { number: 7 } } },
      inputs: { step: '' },
      vars: {},
    }
    expect(interpolate('loop-${{ github.ref }}', context)).toBe('loop-refs/heads/main')
    expect(interpolate("${{ inputs.step || 'one' }}", context)).toBe('one')
    expect(interpolate('#${{ github.event.issue.number }}${{ vars.NOPE }}', context)).toBe('#7')
    expect(evaluateExpression("github.ref == 'REFS/heads/main' && 'yes'", context)).toBe('yes')
    expect(evaluateExpression("format('{0}-{1}', github.ref, 2)", context)).toBe('refs/heads/main-2')
    expect(() => evaluateExpression("hashFiles('**/x')", context)).toThrow(
      /'hashFiles' .* beyond what the workflow engine evaluates/,
    )
  })
})
