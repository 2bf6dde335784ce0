/**
 * Planted attack (issue 15, point 11; issue 18, item 3): the agent's API key, handed to the action as
 * the step's `env` and listed in its `secrets` input as the README once showed, is read by the
 * project's own tests (code the agent may have written) and printed by the agent itself. The built
 * action runs in the GitHub sandbox; the key must reach the agent alone, and nothing the loop keeps
 * (commits, comments, state, audit trail, logs on the runner) may hold it.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { describeJobs, type Scenario, startScenario } from '../e2e/fixtures.js'

// No known token shape: only the action's own knowledge of the key can mask it.
const KEY = 'zq7-agent-key-planted-4f1e9c2b8a7d6e5f'
let scenario: Scenario | undefined
afterEach(async () => {
  await scenario?.stop()
  scenario = undefined
})

/** Every file under `dir` that holds `needle`, by a plain byte search. */
function filesHolding(dir: string, needle: string): string[] {
  try {
    return execFileSync('grep', ['-rlF', '--', needle, dir], { encoding: 'utf8' }).split('\n').filter(Boolean)
  } catch {
    return []
  }
}

describe('the agent`s key in the action', () => {
  it('reaches the work command, never the checks, and no stored byte holds it', async () => {
    scenario = await startScenario({
      steps: 2,
      workflowWith: { secrets: 'ANTHROPIC_API_KEY' },
      sandbox: { extraEnv: { ANTHROPIC_API_KEY: KEY } },
    })
    const { sandbox, signals } = scenario
    await sandbox.dispatch({ 'loop-id': 'keyed' })
    const jobs = await sandbox.waitForIdle(3 * 60_000)
    expect(jobs.at(-1)?.outputs.status, describeJobs(jobs)).toBe('complete')

    expect(readFileSync(join(signals, 'work-saw-key'), 'utf8')).toBe(KEY)
    expect(existsSync(join(signals, 'check-saw-key'))).toBe(false)
    const signalFiles = filesHolding(signals, KEY).map((file) => file.slice(signals.length + 1))
    expect(signalFiles).toEqual(['work-saw-key'])
    // The remote, the API's records, the artifacts and caches, every job's workspace and runner files.
    expect(filesHolding(sandbox.root, KEY)).toEqual([])
    expect(JSON.stringify(sandbox.api.model.comments)).not.toContain(KEY)
    for (const job of jobs) expect(job.stdout + job.stderr).not.toContain(KEY)
  })
})
