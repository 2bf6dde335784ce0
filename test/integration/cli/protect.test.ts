// The verifier-gaming guard through the CLI, in a real git repository: each `protect.on-change` value
// does what the README says, a weakened test in a language beyond JavaScript is caught, and the
// per-attempt metrics are in `status --json`.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cli, tempRepo } from './helpers.js'

/** A loop whose work loosens the protected CI script and whose one check then passes. */
function protectedChangeRepo(onChange: 'gate' | 'fail'): string {
  const config = [
    'work:',
    '  run: echo "exit 0" > scripts/ci/check.sh && touch ok',
    'checks:',
    '  - name: unit',
    '    run: test -f ok',
    'protect:',
    '  paths: ["scripts/ci/**"]',
    `  on-change: ${onChange}`,
    '',
  ].join('\n')
  return tempRepo({ files: { '.github/loop.yml': config, 'scripts/ci/check.sh': 'npm test\n' } })
}

function stateOf(repo: string, loopId: string) {
  return JSON.parse(readFileSync(join(repo, '.loop', loopId, 'loop-state.json'), 'utf8'))
}

describe('protect.on-change', () => {
  it('fail: a protected change stops the loop BLOCKED (exit 3), naming the path in the line, status and handoff', async () => {
    const repo = protectedChangeRepo('fail')
    const run = await cli(repo, 'run', '--loop-id', 'fail', '--no-commit')
    expect(run.code).toBe(3)
    expect(run.stdout).toMatch(/BLOCKED at iteration 1: .*scripts\/ci\/check\.sh/)
    const state = stateOf(repo, 'fail')
    expect(state.status).toBe('blocked')
    expect(state.statusReason).toMatch(/protect\.on-change: fail.*scripts\/ci\/check\.sh.*matches 'scripts\/ci\/\*\*'/)
    expect(state.gates.verifier).toBeUndefined()
    const status = await cli(repo, 'status', '--loop-id', 'fail')
    expect(status.code).toBe(3)
    expect(status.stdout).toContain('scripts/ci/check.sh')
    expect(readFileSync(join(repo, '.loop', 'fail', 'final.md'), 'utf8')).toContain('scripts/ci/check.sh')
  }, 120_000)

  it('gate: a protected change waits at the verifier gate (exit 4), naming the path', async () => {
    const repo = protectedChangeRepo('gate')
    const run = await cli(repo, 'run', '--loop-id', 'gate', '--no-commit')
    expect(run.code).toBe(4)
    const state = stateOf(repo, 'gate')
    expect(state.status).toBe('waiting')
    expect(state.gates.verifier).toMatchObject({ status: 'pending' })
    expect(state.gates.verifier.reason).toMatch(/scripts\/ci\/check\.sh: protected path modified/)
  }, 120_000)
})

describe('a weakened test beyond JavaScript', () => {
  it("a pytest assertion turned into 'assert True' waits at the verifier gate, naming the file", async () => {
    const test = 'from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n'
    const config = [
      'work:',
      `  run: printf 'def test_add():\\n    assert True\\n' > tests/test_calc.py && touch ok`,
      'checks:',
      '  - name: unit',
      '    run: test -f ok',
      '',
    ].join('\n')
    const repo = tempRepo({ files: { '.github/loop.yml': config, 'tests/test_calc.py': test } })
    const run = await cli(repo, 'run', '--loop-id', 'py', '--no-commit')
    expect(run.code).toBe(4)
    const state = stateOf(repo, 'py')
    expect(state.gates.verifier.reason).toMatch(/tests\/test_calc\.py: test file lost assertions \(1 -> 0\)/)
  }, 120_000)
})

describe('status --json', () => {
  it('lists each attempt: its iteration, pattern, strategy, duration and verdict', async () => {
    // The first call leaves the check red; the retry makes it pass.
    const work = 'if [ -f tried ]; then touch ok; else touch tried; fi'
    const repo = tempRepo()
    const run = await cli(repo, 'run', '--work', work, '--verify', 'test -f ok', '--loop-id', 'attempts', '--no-commit')
    expect(run.code).toBe(0)
    const status = await cli(repo, 'status', '--loop-id', 'attempts', '--json')
    const json = JSON.parse(status.stdout)
    expect(json.metrics.attempts).toEqual([
      expect.objectContaining({ iteration: 2, verdict: 'resolved', strategy: expect.any(String) }),
    ])
    expect(json.metrics.attempts[0].durationMs).toBeGreaterThanOrEqual(0)
  }, 120_000)
})
