// The inputs of many loops at once: `max-loops` (the action's input) and `depends-on` (the loop
// config's list, and the issue body's line, read as untrusted text).
import { describe, expect, it } from 'vitest'
import { DependsOnRefusedError, dependenciesOf } from '../../../src/action/depends-on.js'
import { buildRunContext } from '../../../src/action/run-context.js'
import { takeSlot } from '../../../src/action/slots.js'
import { ActionInputError, type EventContext, parseActionInputs } from '../../../src/config/action-inputs.js'
import { ConfigError } from '../../../src/config/errors.js'
import { validateLoopConfig } from '../../../src/config/load-config.js'
import { memoryStore } from './fakes.js'

const noEvent: EventContext = { eventName: 'workflow_dispatch', payload: {}, runId: 777 }
const inputs = (values: Record<string, string>) => (name: string) =>
  ({ 'github-token': 'tok-1234', ...values })[name] ?? ''

describe('max-loops', () => {
  it.each([
    { value: '', maxLoops: null },
    { value: '0', maxLoops: null },
    { value: '2', maxLoops: 2 },
    { value: '1000', maxLoops: 1000 },
  ])('reads $value', ({ value, maxLoops }) => {
    expect(parseActionInputs(inputs({ 'max-loops': value }), noEvent).maxLoops).toBe(maxLoops)
  })

  it.each<{ values: Record<string, string>; message: string }>([
    {
      values: { 'max-loops': '1001' },
      message: "Input 'max-loops' must be a whole number from 1 to 1000 (empty or 0: no limit); got '1001'.",
    },
    {
      values: { 'max-loops': 'two' },
      message: "Input 'max-loops' must be a whole number from 1 to 1000 (empty or 0: no limit); got 'two'.",
    },
    { values: { 'max-loops': '-1' }, message: "got '-1'" },
    {
      values: { 'max-loops': '3', store: 'cache' },
      message:
        "Input 'max-loops' needs 'store: git' (the queue of loops lives on the git store's branch, changed under compare-and-swap); got 'store: cache' with 'max-loops: 3'.",
    },
  ])('refuses $values', ({ values, message }) => {
    let problems: readonly string[] = []
    try {
      parseActionInputs(inputs(values), noEvent)
    } catch (error) {
      expect(error).toBeInstanceOf(ActionInputError)
      problems = (error as ActionInputError).problems
    }
    expect(
      problems.some((problem) => problem.includes(message)),
      problems.join('\n'),
    ).toBe(true)
  })
})

describe('depends-on', () => {
  // The label that starts the loop: the only event whose issue body is read.
  const issueEvent = (body: unknown, extra: Record<string, unknown> = {}) => ({
    event: {
      name: 'issues',
      payload: {
        action: 'labeled',
        label: { name: 'loop' },
        sender: { login: 'alice', type: 'User' },
        issue: { number: 20, body, ...extra },
      } as Record<string, unknown>,
    },
  })

  it.each<
    [
      string,
      ReturnType<typeof issueEvent> | { event: { payload: Record<string, unknown> } },
      Array<number | string>,
      string[],
    ]
  >([
    ['nothing anywhere', issueEvent('Fix it.'), [], []],
    ['the issue body', issueEvent('Fix it.\ndepends-on: #12, #15'), [], ['issue-12', 'issue-15']],
    ['the config, numbers and quoted hashes', { event: { payload: {} } }, [3, '#4'], ['issue-3', 'issue-4']],
    ['both, without repeats', issueEvent('depends-on: 3 5'), [3], ['issue-3', 'issue-5']],
    ['a pull request body is not read', issueEvent('depends-on: nonsense', { pull_request: {} }), [], []],
    [
      'a comment that is no start does not read the body',
      {
        event: {
          name: 'issue_comment',
          payload: {
            action: 'created',
            comment: { body: '/loop resume' },
            issue: { number: 20, body: 'depends-on: nonsense' },
          },
        },
      },
      [],
      [],
    ],
  ])('%s', (_name, run, fromConfig, expected) => {
    expect(dependenciesOf(run as never, { 'depends-on': fromConfig })).toEqual(expected)
  })

  it.each([
    [
      'a word in the line',
      issueEvent('depends-on: #12 and $(rm -rf /)'),
      [],
      /^the 'depends-on:' line in the body of issue #20 must list issue numbers/,
    ],
    ['its own issue', issueEvent('depends-on: #20'), [], /names issue #20 itself/],
    [
      'eleven together',
      issueEvent('depends-on: 1 2 3 4 5 6'),
      [7, 8, 9, 10, 11],
      /names 11 issues; expected at most 10/,
    ],
  ])('refuses %s', (_name, run, fromConfig, message) => {
    expect(() => dependenciesOf(run as never, { 'depends-on': fromConfig })).toThrow(ConfigError)
    expect(() => dependenciesOf(run as never, { 'depends-on': fromConfig })).toThrow(message)
  })

  it.each<
    [string, ReturnType<typeof issueEvent> | { event: { payload: Record<string, unknown> } }, string | undefined]
  >([
    ['the labelled issue 12', issueEvent('Fix it.', { number: 12 }), undefined],
    ['a queued loop of issue 12 dispatched (no issue in the event)', { event: { payload: {} } }, 'issue-12'],
  ])("a shared config's list naming the loop's own issue is refused on the issue: %s", (_name, run, loopId) => {
    let thrown: unknown
    try {
      dependenciesOf(run as never, { 'depends-on': [12, 15] }, loopId)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(DependsOnRefusedError)
    expect((thrown as DependsOnRefusedError).source).toBe('config')
    expect((thrown as Error).message).toContain(
      "the loop config's 'depends-on' names issue #12, the issue of this loop itself",
    )
    // Another issue's loop with the same config waits for both.
    expect(dependenciesOf(issueEvent('Fix it.') as never, { 'depends-on': [12, 15] }, 'issue-20')).toEqual([
      'issue-12',
      'issue-15',
    ])
  })

  it.each([
    ['this repository', 'octo/shop', ['issue-12']],
    ['this repository, another case', 'Octo/Shop', ['issue-12']],
  ])('the body may name %s', (_name, repository, expected) => {
    const run = { ...issueEvent('depends-on: [octo/shop#12]'), repository }
    expect(dependenciesOf(run as never, {})).toEqual(expected)
  })

  it('the body naming another repository is refused on the issue', () => {
    const run = { ...issueEvent('- depends-on: octo/other#12'), repository: 'octo/shop' }
    expect(() => dependenciesOf(run as never, {})).toThrow(DependsOnRefusedError)
    expect(() => dependenciesOf(run as never, {})).toThrow('"octo/other#12" is an issue of another repository')
  })

  it.each([
    [[12, '#15'], null],
    [['12'], /depends-on/],
    [[0], /depends-on/],
    [Array.from({ length: 11 }, (_, i) => i + 1), /depends-on: expected .*10/],
  ])('the loop config takes %j', (list, problem) => {
    const config = { work: { run: 'agent' }, checks: [{ name: 'test', run: 'npm test' }], 'depends-on': list }
    if (problem === null) expect(validateLoopConfig(config, 'loop.yml')['depends-on']).toEqual(list)
    else expect(() => validateLoopConfig(config, 'loop.yml')).toThrow(problem)
  })

  it('with a store other than git is refused, naming the store and the loops waited for', async () => {
    const run = buildRunContext({
      env: {
        GITHUB_REPOSITORY: 'octo/shop',
        GITHUB_WORKFLOW_REF: 'octo/shop/.github/workflows/loop.yml@refs/heads/main',
      },
      event: {
        eventName: 'issues',
        payload: issueEvent('Fix it.\ndepends-on: #12, #15').event.payload,
        runId: 7,
      },
      getInput: inputs({ store: 'cache' }),
      cwd: '/',
    })
    const store = { ...memoryStore(), kind: 'cache' as const }
    const config = validateLoopConfig({ work: { run: 'agent' }, checks: [{ name: 'test', run: 'true' }] }, 'loop.yml')
    const taken = takeSlot(run, { loopId: 'issue-20', config, root: '/' }, { store } as never)
    await expect(taken).rejects.toBeInstanceOf(ConfigError)
    await expect(taken).rejects.toThrow(
      "'depends-on' needs 'store: git' (the queue of loops lives on the git store's branch); got 'store: cache' with 'depends-on: #12, #15'. Use the default store, 'git', or remove 'depends-on'.",
    )
  })
})
