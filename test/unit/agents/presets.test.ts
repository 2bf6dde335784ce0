import { describe, expect, it } from 'vitest'
import { AGENT_PRESETS, callUsage, classifyAgentError, stopsTheLoop } from '../../../src/domain/agents/index.js'
import type { AgentSettings } from '../../../src/domain/agents/types.js'

const settings = (name: AgentSettings['name'], extra: Partial<AgentSettings> = {}): AgentSettings => ({
  name,
  args: [],
  ...extra,
})
const call = { promptFile: '/w/.loop/x/runs/1/prompt.md', session: null, remainingUsd: null, ownSandbox: true }

describe('preset command lines', () => {
  it.each([
    [
      'claude new session',
      'claude',
      {},
      call,
      ['claude', '-p', '--output-format', 'json', '--permission-mode', 'acceptEdits'],
      ['--resume'],
    ],
    [
      'claude resumes and holds the budget',
      'claude',
      { maxTurns: 12, model: 'opus' },
      { ...call, session: 's-1', remainingUsd: 1.5 },
      ['--resume', 's-1', '--max-budget-usd', '1.5000', '--max-turns', '12', '--model', 'opus'],
      [],
    ],
    ['codex new thread', 'codex', {}, call, ['codex', 'exec', '--json', '-'], ['resume']],
    [
      'codex resumes its thread, sandbox as a config override',
      'codex',
      {},
      { ...call, session: 't-9' },
      ['exec', 'resume', 't-9', '-c', 'sandbox_mode="workspace-write"'],
      ['--sandbox'],
    ],
    [
      'codex where it cannot make its own sandbox runs inside the controller`s',
      'codex',
      {},
      { ...call, ownSandbox: false },
      ['-c', 'sandbox_mode="danger-full-access"', 'approval_policy="never"'],
      ['sandbox_mode="workspace-write"', '--dangerously-bypass-approvals-and-sandbox'],
    ],
    [
      'gemini',
      'gemini',
      { model: 'gemini-2.5-pro' },
      call,
      ['gemini', '--output-format', 'json', '--approval-mode', 'auto_edit', '--model'],
      ['--yolo'],
    ],
    ['aider', 'aider', {}, call, ['aider', '--message-file', call.promptFile, '--no-auto-commits', '--yes-always'], []],
  ] as const)('%s', (_label, name, extra, input, present, absent) => {
    const built = AGENT_PRESETS[name].call(settings(name, extra), input)
    for (const word of present) expect(built.argv).toContain(word)
    for (const word of absent) expect(built.argv).not.toContain(word)
    // The prompt is never a word of the command line: it goes on standard input or as a file name.
    expect(built.argv.join(' ')).not.toMatch(/# Goal/)
  })

  it('says when a preset ran its CLI without the CLI`s own sandbox, and only then', () => {
    expect(AGENT_PRESETS.codex.call(settings('codex'), { ...call, ownSandbox: false }).note).toMatch(
      /without its own sandbox.*controller's isolation/,
    )
    for (const name of ['claude', 'codex', 'gemini', 'aider'] as const) {
      expect(AGENT_PRESETS[name].call(settings(name), call).note).toBeUndefined()
    }
  })

  it('appends agent-args after the preset flags, and never a shell', () => {
    const built = AGENT_PRESETS.claude.call(settings('claude', { args: ['--verbose'] }), call)
    expect(built.argv.at(-1)).toBe('--verbose')
    expect(built.stdinFile).toBe(call.promptFile)
  })
})

const claudeResult = (fields: Record<string, unknown>) =>
  JSON.stringify({ type: 'result', subtype: 'success', is_error: false, num_turns: 3, session_id: 'sess-1', ...fields })

describe('reading what each CLI printed', () => {
  it.each([
    [
      'claude success',
      'claude',
      claudeResult({
        total_cost_usd: 0.0421,
        usage: {
          input_tokens: 1000,
          cache_creation_input_tokens: 200,
          cache_read_input_tokens: 300,
          output_tokens: 150,
        },
      }),
      0,
      { understood: true, tokens: 1650, costUsd: 0.0421, session: 'sess-1', turns: 3 },
      undefined,
    ],
    [
      'claude max turns',
      'claude',
      claudeResult({ subtype: 'error_max_turns', is_error: true }),
      1,
      { understood: true },
      'max-turns',
    ],
    [
      'claude budget',
      'claude',
      claudeResult({ subtype: 'error_max_budget_usd', is_error: true }),
      1,
      { understood: true },
      'budget',
    ],
    [
      'claude refused key',
      'claude',
      claudeResult({ is_error: true, result: 'Invalid API key · Please run /login' }),
      1,
      { understood: true },
      'auth',
    ],
    [
      'claude overloaded',
      'claude',
      claudeResult({ is_error: true, result: 'API Error: 529 {"type":"error","error":{"type":"overloaded_error"}}' }),
      1,
      { understood: true },
      'overloaded',
    ],
    [
      'claude, the API status it reports',
      'claude',
      claudeResult({ is_error: true, api_error_status: 401, result: 'Invalid API key · Fix external API key' }),
      1,
      { understood: true },
      'auth',
    ],
    ['claude prints no JSON', 'claude', 'Error: something else entirely', 1, { understood: false }, undefined],
    [
      'codex events',
      'codex',
      [
        '{"type":"thread.started","thread_id":"th-1"}',
        'a stray log line',
        '{"type":"turn.started"}',
        '{"type":"turn.completed","usage":{"input_tokens":5000,"cached_input_tokens":4000,"output_tokens":300}}',
      ].join('\n'),
      0,
      { understood: true, tokens: 5300, session: 'th-1', turns: 1, tokensAreSessionTotal: true },
      undefined,
    ],
    [
      'codex turn failed',
      'codex',
      '{"type":"thread.started","thread_id":"th-2"}\n{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized"}}',
      1,
      { understood: true, session: 'th-2' },
      'auth',
    ],
    [
      'gemini',
      'gemini',
      JSON.stringify({ response: 'done', stats: { models: { 'gemini-2.5-pro': { tokens: { total: 2500 } } } } }),
      0,
      { understood: true, tokens: 2500 },
      undefined,
    ],
    ['gemini turn limit', 'gemini', '', 53, { understood: false }, 'max-turns'],
    [
      'aider',
      'aider',
      'Applied edit to src/cart.js\nTokens: 4.2k sent, 312 received. Cost: $0.02 message, $0.05 session.',
      0,
      { understood: true, tokens: 4512, costUsd: 0.02 },
      undefined,
    ],
  ] as const)('%s', (_label, name, stdout, exitCode, expected, failureKind) => {
    const report = AGENT_PRESETS[name].read({ stdout, output: stdout, exitCode })
    expect(report).toMatchObject(expected)
    expect(report.failure?.kind).toBe(failureKind)
  })
})

describe('classifying an agent failure', () => {
  it.each([
    ['API Error: 401 authentication_error invalid x-api-key', 'auth', false, true],
    ['Your credit balance is too low to access the Anthropic API', 'quota', false, true],
    ['429 insufficient_quota: You exceeded your current quota', 'quota', false, true],
    ['API Error: 529 overloaded_error', 'overloaded', true, true],
    ['rate_limit_error: 429 Too Many Requests', 'rate-limit', true, true],
    ['stream disconnected before completion', 'network', true, true],
    ['500 Internal Server Error', 'server-error', true, true],
    ['We’re currently experiencing high demand, which may cause temporary errors.', 'server-error', true, true],
    ['the model refused to continue', 'unknown', false, false],
  ] as const)('%s', (text, kind, transient, stops) => {
    const failure = classifyAgentError(text)
    expect(failure).toMatchObject({ kind, transient })
    expect(stopsTheLoop(failure)).toBe(stops)
  })

  it('a call cut short by its turn limit is verified, not a stop', () => {
    expect(stopsTheLoop({ kind: 'max-turns', transient: false, message: '' })).toBe(false)
    expect(stopsTheLoop({ kind: 'timed-out', transient: false, message: '' })).toBe(false)
  })
})

describe('counting each token and each dollar once', () => {
  const base = { understood: true, tokensAreSessionTotal: false, costIsSessionTotal: false }
  it.each([
    [
      'a new session counts what it reports',
      { ...base, costIsSessionTotal: true, costUsd: 0.3, tokens: 900, session: 'a' },
      null,
      { costUsd: 0.3, tokens: 900 },
      { id: 'a', costUsd: 0.3, tokens: 900 },
    ],
    [
      'a resumed Claude session reports its running cost',
      { ...base, costIsSessionTotal: true, costUsd: 0.5, tokens: 400, session: 'a' },
      { id: 'a', costUsd: 0.3, tokens: 900 },
      { costUsd: 0.2, tokens: 400 },
      { id: 'a', costUsd: 0.5, tokens: 1300 },
    ],
    [
      'a resumed Codex thread reports its running tokens',
      { ...base, tokensAreSessionTotal: true, tokens: 7000, session: 't' },
      { id: 't', costUsd: 0, tokens: 5000 },
      { tokens: 2000 },
      { id: 't', costUsd: 0, tokens: 7000 },
    ],
    [
      'another session starts from zero',
      { ...base, costIsSessionTotal: true, costUsd: 0.1, session: 'b' },
      { id: 'a', costUsd: 0.3, tokens: 900 },
      { costUsd: 0.1 },
      { id: 'b', costUsd: 0.1, tokens: 0 },
    ],
    ['no session, no totals kept', { ...base, tokens: 50 }, null, { tokens: 50 }, null],
  ] as const)('%s', (_label, report, previous, call, totals) => {
    const result = callUsage(report, previous)
    expect({ tokens: result.tokens, costUsd: result.costUsd }).toEqual({
      tokens: undefined,
      costUsd: undefined,
      ...call,
    })
    if (result.costUsd !== undefined) expect(result.costUsd).toBeCloseTo((call as { costUsd?: number }).costUsd ?? 0)
    expect(result.totals).toEqual(totals)
  })
})
