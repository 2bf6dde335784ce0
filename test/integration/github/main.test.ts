// The composition root's single top-level catch: a user's mistake fails the step with the message
// that names the input, before any side effect. Workflow-command output is captured, never printed.
import { afterEach, describe, expect, it, vi } from 'vitest'

const saved = { ...process.env }

afterEach(() => {
  process.env = { ...saved }
  process.exitCode = undefined
  vi.restoreAllMocks()
  vi.resetModules()
})

async function runWith(env: Record<string, string>): Promise<string> {
  Object.assign(
    process.env,
    { GITHUB_REPOSITORY: 'o/r', GITHUB_EVENT_NAME: 'workflow_dispatch', GITHUB_RUN_ID: '7' },
    env,
  )
  let out = ''
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += chunk.toString()
    return true
  })
  const { run } = await import('../../../src/main.js')
  await run()
  vi.restoreAllMocks()
  return out
}

describe('run', () => {
  it('fails the step with every bad input named', async () => {
    const out = await runWith({
      'INPUT_GITHUB-TOKEN': 'tok',
      'INPUT_MAX-ITERATIONS': 'abc',
      INPUT_STORE: 's3',
    })
    expect(process.exitCode).toBe(1)
    expect(out).toContain("::error::Input 'max-iterations' must be a whole number from 1 to 1000; got 'abc'.")
    expect(out).toContain("Input 'store' must be one of auto, cache, artifact, git; got 's3'.")
    expect(out).not.toContain('loop-controller failed')
  })

  it('refuses a missing config outside simple mode, plainly', async () => {
    const out = await runWith({
      'INPUT_GITHUB-TOKEN': 'tok',
      INPUT_CONFIG: 'no/such/loop.yml',
      GITHUB_WORKSPACE: process.cwd(),
      GITHUB_API_URL: 'http://127.0.0.1:9',
    })
    expect(process.exitCode).toBe(1)
    expect(out).toContain("No loop config at 'no/such/loop.yml'")
  })
})
