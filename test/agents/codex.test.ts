/**
 * The real Codex CLI in the loop, talking to the scripted OpenAI Responses API on loopback through a
 * `model_providers` entry in its config. The CLI reads files with its shell tool and edits them with
 * its own `apply_patch`; the controller sees what it would see with a real model.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { agentBinary, DEMO_CHECKS, demoRepo, runLoop } from './harness.js'
import { OpenAIModelServer } from './model-server/openai.js'

const installed = agentBinary('codex')
if ('skip' in installed) console.log(`test:agents: Codex skipped: ${installed.skip}`)

const KEY = 'sk-proj-scriptedModelKey0123456789abcdefghijklmnop'
const CONFIG = `goal: Make the price calculator's checks pass.
agent: codex
max-iterations: 8
retry: { backoff-seconds: 1 }
work: { timeout: 3m }
${DEMO_CHECKS}`

let server: OpenAIModelServer | undefined
afterEach(async () => {
  await server?.close()
})

/** The environment a user gives the step: the key, and Codex's home with the scripted provider. */
function agentEnv(repo: string, model: OpenAIModelServer): Record<string, string> {
  const codexHome = join(repo, '..', 'codex-config')
  mkdirSync(codexHome, { recursive: true })
  writeFileSync(join(codexHome, 'config.toml'), model.configToml())
  return { OPENAI_API_KEY: KEY, CODEX_HOME: codexHome }
}

describe.skipIf('skip' in installed)('agent: codex (the real Codex CLI)', () => {
  const binary = 'path' in installed ? installed.path : ''

  it('takes the demo from red to COMPLETE, counting the thread`s tokens once, its thread resumed', async () => {
    const repo = demoRepo(CONFIG)
    server = await OpenAIModelServer.start(repo)
    const run = await runLoop(repo, { name: 'codex', binary }, agentEnv(repo, server))
    expect(run.code, run.stdout).toBe(0)
    expect(run.state.status).toBe('complete')
    const calls = run.state.metrics.workCalls
    expect(calls).toBeGreaterThanOrEqual(2)

    // Each call's `turn.completed` is the thread's running total: the loop holds the last one, once.
    const totals = Array.from({ length: run.state.iteration }, (_, i) => threadTotal(run.workLog(i + 1))).filter(
      (t) => t !== null,
    )
    expect(totals.length).toBe(calls)
    expect(new Set(totals.map((t) => t.thread)).size).toBe(1)
    expect(run.state.usage.tokens).toBe(totals.at(-1)?.tokens)
    expect(run.state.session).toBe(totals[0]?.thread)

    // The second call resumed the thread: its first request carries the first prompt's conversation.
    const prompts = server.prompts()
    expect(prompts.length).toBe(calls)
    const quoted = (text: string | undefined) => JSON.stringify(text ?? '?').slice(1, -1)
    const resumed = server.requests.find((r) => JSON.stringify(r.body).includes(quoted(prompts[1])))
    expect(JSON.stringify(resumed?.body ?? null)).toContain(quoted(prompts[0]))

    expect(server.requests.some((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true)
    for (let n = 1; n <= run.state.iteration; n++) expect(run.workLog(n)).not.toContain(KEY)
  })

  it('calls again after the API failed with a 5xx, then stops BLOCKED when the key is refused', async () => {
    const repo = demoRepo(CONFIG)
    server = await OpenAIModelServer.start(repo)
    // The first call and Codex's own retries meet 500s; every later request meets 401.
    server.failNext(500, 4)
    server.failNext(401, 50)
    const run = await runLoop(repo, { name: 'codex', binary }, agentEnv(repo, server))
    expect(run.code, run.stdout).toBe(3)
    expect(run.state.status).toBe('blocked')
    expect(run.journey).toMatch(/Codex failed \(server-error: .*calling again in 1 s \(attempt 2 of 3\)/)
    expect(run.state.statusReason).toMatch(/the Codex API refused the key \(unexpected status 401 Unauthorized/)
    expect(run.state.iteration).toBe(1)
  })
})

/** The thread and its running token total, from the last `turn.completed` a Codex call printed. */
function threadTotal(log: string): { thread: string; tokens: number } | null {
  const events = log
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => {
      try {
        return JSON.parse(l) as { type: string; thread_id?: string; usage?: Record<string, number> }
      } catch {
        return null
      }
    })
    .filter((e) => e !== null)
  const thread = events.find((e) => e.type === 'thread.started')?.thread_id
  const usage = events.filter((e) => e.type === 'turn.completed').at(-1)?.usage
  if (!thread || !usage) return null
  return { thread, tokens: (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0) }
}
