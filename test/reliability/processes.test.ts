// Processes (issue 7, item 4) through the whole CLI: checks that hang, ignore SIGTERM, fork children and
// exit, or flood their output are stopped at their timeout with their whole process tree and reported
// as `timeout` (the analysis pattern too).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { alive, cliEnv, createQuickLoop, ensureCliBundle, processesIn, runCliSync } from './harness.js'
import { recordProof } from './record-proof.js'

const CHECKS = {
  hangs: 'sleep 600',
  'ignores-sigterm': `node -e "process.on('SIGTERM', () => console.log('ignored')); setInterval(() => {}, 1000)"`,
  'forks-children': 'sleep 600 & sleep 600 & echo forked; wait',
  'floods-output': 'yes flood',
}

const TIMEOUT_SECONDS = 2
const figures: Record<string, unknown> = {}
recordProof('processes', () => figures)

describe('runaway commands through the CLI', () => {
  it('are stopped at their timeout with their process tree and reported as timeout', () => {
    ensureCliBundle()
    const checks = Object.entries(CHECKS)
      .map(
        ([name, run]) =>
          `  - name: ${name}\n    kind: test\n    run: ${JSON.stringify(run)}\n    timeout: ${TIMEOUT_SECONDS}s\n`,
      )
      .join('')
    const dir = createQuickLoop({ checks: `checks:\n${checks}`, extraConfig: 'flake-check:\n  enabled: false\n' })
    const started = Date.now()
    const run = runCliSync(dir, ['next', '--loop-id', 'procs'], cliEnv())
    const elapsed = Date.now() - started
    const state = JSON.parse(readFileSync(join(dir, '.loop', 'procs', 'loop-state.json'), 'utf8'))
    const results = state.lastVerification.results as { name: string; verdict: string; pattern: string | null }[]
    for (const name of Object.keys(CHECKS)) {
      const result = results.find((r) => r.name === name)
      expect(result?.verdict, `${name}: ${JSON.stringify(result)}\n${run.stderr}`).toBe('timeout')
      expect(result?.pattern).toBe('timeout')
    }
    // Nothing the checks started is still running, and the run took the timeouts, not the sleeps.
    const left = processesIn(dir).filter(alive)
    expect(left).toEqual([])
    expect(elapsed).toBeLessThan(60_000)
    // Each check ran twice: at the baseline (recorded there as a failure), then to verify the work.
    const baselineChecks = state.baseline?.checks ?? {}
    Object.assign(figures, {
      commands: Object.keys(CHECKS),
      baselineRuns: Object.keys(CHECKS).filter((name) => baselineChecks[name] === 'fail').length,
      verifyTimeouts: Object.keys(CHECKS).filter((name) => results.find((r) => r.name === name)?.verdict === 'timeout')
        .length,
      timeoutSeconds: TIMEOUT_SECONDS,
      processesLeft: left.length,
    })
    console.log(
      `processes: ${Object.keys(CHECKS).length} runaway commands x 2 runs (baseline and verify) stopped at a ${TIMEOUT_SECONDS} s timeout, ` +
        `${left.length} left running, all reported as timeout (${Math.round(elapsed / 1000)} s)`,
    )
  }, 90_000)
})
