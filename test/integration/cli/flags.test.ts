// Bad CLI input is refused, never ignored: an option the command does not read, a negative number, an
// empty value, a bad --isolation (before anything is printed) each get a message naming the option,
// the bad value and what is expected, exit 2, and nothing is started.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { COMMAND_OPTIONS, OPTIONS } from '../../../src/cli/options.js'
import { cli, tempRepo } from './helpers.js'

describe('options a command does not take', () => {
  it.each<[string[], string]>([
    [
      ['status', '--verify', 'x'],
      "'status' does not take --verify; it takes --config, --loop-id, --state-dir, --json,",
    ],
    [['abort', '--work', 'x'], "'abort' does not take --work; it takes --config, --loop-id, --state-dir, --reason"],
    [['approve', 'security', '--reason', 'ok'], "'approve' does not take --reason;"],
    [['history', '--config', 'x.yml'], "'history' does not take --config; it takes --loop-id, --state-dir, --json"],
    [
      ['init', '--state-dir', 'elsewhere'],
      "'init' does not take --state-dir; it takes --work, --agent, --verify, --force",
    ],
    [['patterns', 'promote', '--all', '--loop-id', 'x'], "'patterns' does not take --loop-id;"],
    [['status', '--no-commit'], "'status' does not take --no-commit;"],
    [['run', '--work', 'true', '--verify', 'true', '--json'], "'run' does not take --json;"],
    [['run', '--version'], "'run' has no option --version; it takes --config, --work,"],
    [['next', '--bogus'], "'next' has no option --bogus; it takes --config, --work,"],
  ])('%j', async (args, message) => {
    const repo = tempRepo()
    const run = await cli(repo, ...args)
    expect([run.code, run.stdout]).toEqual([2, ''])
    expect(run.stderr).toContain(`loop-controller: ${message}`)
    expect(run.stderr).toContain(`(see 'loop-controller ${args[0]} --help')`)
    expect(existsSync(join(repo, '.loop'))).toBe(false)
  })

  it('every option is taken by some command, and the run options by resume where a cap is raised', () => {
    const taken = new Set(Object.values(COMMAND_OPTIONS).flat())
    for (const option of Object.keys(OPTIONS))
      if (option !== 'help') expect(taken.has(option as never), option).toBe(true)
    for (const command of ['run', 'next', 'resume'] as const) {
      expect(COMMAND_OPTIONS[command]).toEqual(expect.arrayContaining(['max-iterations', 'cap-reason']))
    }
  })
})

describe('bad values', () => {
  it.each<[string[], string]>([
    [
      ['run', '--work', 'true', '--verify', 'true', '--max-iterations', '-3'],
      "--max-iterations must be a whole number from 1 to 1000; got '-3'.",
    ],
    [
      ['next', '--work', 'true', '--verify', 'true', '--max-iterations', '-0.5'],
      "--max-iterations must be a whole number from 1 to 1000; got '-0.5'.",
    ],
    [
      ['status', '--all', '--remote', 'origin', '--max-loops', '-1'],
      "--max-loops must be a whole number from 1 to 1000 (the workflow's max-loops); got '-1'.",
    ],
    [
      ['run', '--work', '', '--verify', 'true'],
      "--work is empty; expected the work command (e.g. --work 'npm run fix'), or --agent NAME for a preset.",
    ],
    [
      ['run', '--work', 'true', '--verify', ' '],
      "--verify is empty; expected a verify command (e.g. --verify 'npm test').",
    ],
    [
      ['status', '--loop-id', ''],
      "--loop-id is empty; expected a loop's id (without --loop-id: from the current branch).",
    ],
    [
      ['next', '--state-dir', '', '--work', 'true', '--verify', 'true'],
      '--state-dir is empty; expected a directory (without --state-dir: .loop at the repository root).',
    ],
    [
      ['run', '--isolation', 'bogus', '--work', 'true', '--verify', 'true'],
      "--isolation: expected one of auto, pid-namespace, none; got 'bogus'.",
    ],
  ])('%j', async (args, message) => {
    const repo = tempRepo()
    const run = await cli(repo, ...args)
    // Refused before anything is printed (no loop header) or started.
    expect([run.code, run.stdout, run.stderr]).toEqual([2, '', `loop-controller: ${message}\n`])
    expect(existsSync(join(repo, '.loop'))).toBe(false)
  })
})

describe('patterns promote without a loop config', () => {
  const candidate = {
    '.loop/x/dead-letters/sig.pattern.yml': '- id: candidate-abc\n  signals: [foo]\n  strategy: analyze_then_fix\n',
  }

  it('says the patterns go to a loop config, without simple mode`s advice', async () => {
    const repo = tempRepo({ files: candidate })
    const run = await cli(repo, 'patterns', 'promote', '--all')
    expect([run.code, run.stdout]).toEqual([2, ''])
    expect(run.stderr).toBe(
      "loop-controller: 'patterns promote' adds the candidates to the patterns a loop config names, and there is no loop config at .github/loop.yml (a loop run in simple mode has none): write one with 'loop-controller init', or name yours with --config FILE.\n",
    )
    expect(run.stderr).not.toContain('--work')
  })

  it('names a --config that is not there', async () => {
    const repo = tempRepo({ files: candidate })
    const run = await cli(repo, 'patterns', 'promote', '--all', '--config', 'nope.yml')
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('there is no loop config at nope.yml: expected the path of your loop config.')
  })
})
