/**
 * The real Claude Code CLI in the loop, talking to the scripted Anthropic Messages API on loopback.
 * The model is the stand-in, never the agent: the CLI reads the prompt, calls the API, and applies the
 * edits with its own Read and Edit tools; the controller sees what it would see with a real model.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { agentBinary, DEMO_CHECKS, demoRepo, runLoop } from './harness.js'
import { AnthropicModelServer } from './model-server/anthropic.js'

const installed = agentBinary('claude')
if ('skip' in installed) console.log(`test:agents: Claude Code skipped: ${installed.skip}`)

const KEY = 'sk-ant-api03-scriptedModelKey0123456789abcdefghijklmnop'
const CONFIG = `goal: Make the price calculator's checks pass.
agent: claude
model: claude-sonnet-4-5
max-turns: 12
max-iterations: 8
budget: { cost-usd: 20 }
retry: { backoff-seconds: 1 }
work: { timeout: 3m }
${DEMO_CHECKS}`

let server: AnthropicModelServer | undefined
afterEach(async () => {
  await server?.close()
})

/** The environment a user gives the step, with the API pointed at the scripted model. */
function agentEnv(url: string): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    // One retry of its own per call: the controller's backoff is what is under test.
    CLAUDE_CODE_MAX_RETRIES: '1',
  }
}

describe.skipIf('skip' in installed)('agent: claude (the real Claude Code CLI)', () => {
  const binary = 'path' in installed ? installed.path : ''

  it('takes the demo from red to COMPLETE, with the usage it reported and its session resumed', async () => {
    const repo = demoRepo(CONFIG)
    server = await AnthropicModelServer.start(repo)
    const run = await runLoop(repo, { name: 'claude', binary }, agentEnv(server.url))
    expect(run.code, run.stdout).toBe(0)
    expect(run.state.status).toBe('complete')
    const calls = run.state.metrics.workCalls
    expect(calls).toBeGreaterThanOrEqual(2)

    // The budget holds what the CLI reported: each call's tokens, and the session's dollars once.
    const results = Array.from({ length: run.state.iteration }, (_, i) => lastResult(run.workLog(i + 1))).filter(
      (r) => r !== null,
    )
    expect(results.length).toBe(calls)
    const tokens = results.reduce((sum, r) => sum + r.tokens, 0)
    expect(run.state.usage.tokens).toBe(tokens)
    expect(run.state.usage.costUsd).toBeCloseTo(results.at(-1)?.totalCostUsd ?? -1, 6)
    expect(run.state.usage.costUsd).toBeGreaterThan(0)

    // Iteration 2 resumed the session iteration 1 reported: one session, and its earlier turns resent.
    expect(new Set(results.map((r) => r.session)).size).toBe(1)
    expect(run.state.session).toBe(results[0]?.session)
    const prompts = server.prompts()
    expect(prompts.length).toBe(calls)
    // The second prompt's first request carries the first prompt's whole conversation before it.
    const quoted = (text: string | undefined) => JSON.stringify(text ?? '?').slice(1, -1)
    const resumed = server.requests.find((r) => r.agentTurn && JSON.stringify(r.body).includes(quoted(prompts[1])))
    expect(JSON.stringify(resumed?.body ?? null)).toContain(quoted(prompts[0]))

    // The key reached the agent (the API saw it) and nothing the loop wrote.
    expect(server.requests.some((r) => r.headers['x-api-key'] === KEY)).toBe(true)
    for (let n = 1; n <= run.state.iteration; n++) expect(run.workLog(n)).not.toContain(KEY)
    expect(run.stdout).not.toContain(KEY)
  })

  it('calls again after the API was overloaded, then stops BLOCKED when the key is refused', async () => {
    const repo = demoRepo(CONFIG)
    server = await AnthropicModelServer.start(repo)
    // The first call and its own retry meet 529; every later request meets 401.
    server.failNext(529, 2, 'Overloaded')
    server.failNext(401, 50, 'invalid x-api-key')
    const run = await runLoop(repo, { name: 'claude', binary }, agentEnv(server.url))
    expect(run.code, run.stdout).toBe(3)
    expect(run.state.status).toBe('blocked')
    expect(run.journey).toMatch(
      /Claude Code failed \(overloaded: API error 529: .*calling again in 1 s \(attempt 2 of 3\)/,
    )
    expect(run.state.statusReason).toMatch(/the Claude Code API refused the key \(API error 401: Invalid API key/)
    expect(run.state.iteration).toBe(1)
    expect(run.stdout).toMatch(/BLOCKED at iteration 1: the Claude Code API refused the key/)
  })
})

/** The `result` object a Claude Code call printed last in its log. */
function lastResult(log: string): { tokens: number; totalCostUsd: number; session: string } | null {
  const line = log
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{') && l.includes('"type":"result"'))
  if (!line) return null
  const result = JSON.parse(line) as {
    usage: Record<string, number>
    total_cost_usd: number
    session_id: string
  }
  const u = result.usage
  const tokens =
    (u.input_tokens ?? 0) +
    (u.cache_creation_input_tokens ?? 0) +
    (u.cache_read_input_tokens ?? 0) +
    (u.output_tokens ?? 0)
  return { tokens, totalCostUsd: result.total_cost_usd, session: result.session_id }
}
