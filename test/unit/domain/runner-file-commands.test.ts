import { describe, expect, it } from 'vitest'
import { buildCommandEnv } from '../../../src/domain/command-env.js'
import {
  commandLabel,
  isRunnerFileCommand,
  RUNNER_FILE_COMMANDS,
  tamperingOf,
  tamperingWarning,
  withoutRunnerFileCommands,
} from '../../../src/domain/runner-file-commands.js'

const runnerFiles = {
  GITHUB_ENV: '/runner/_temp/_runner_file_commands/set_env_1',
  GITHUB_PATH: '/runner/_temp/_runner_file_commands/add_path_1',
  GITHUB_OUTPUT: '/runner/_temp/_runner_file_commands/set_output_1',
  GITHUB_STATE: '/runner/_temp/_runner_file_commands/save_state_1',
  GITHUB_STEP_SUMMARY: '/runner/_temp/_runner_file_commands/step_summary_1',
}
const base = { PATH: '/usr/bin', RUNNER_TEMP: '/runner/_temp', GITHUB_WORKSPACE: '/work', ...runnerFiles }

describe('no project command gets the runner file commands', () => {
  const table: Array<{ case: string; passEnv: string[]; extra: Record<string, string> }> = [
    { case: 'from the controller environment', passEnv: [], extra: {} },
    { case: 'when the config passes them by name', passEnv: [...RUNNER_FILE_COMMANDS], extra: {} },
    { case: "when the config's env sets them", passEnv: [], extra: { GITHUB_ENV: '/tmp/x', github_path: '/tmp/y' } },
  ]
  it.each(table)('$case', ({ passEnv, extra }) => {
    const env = buildCommandEnv(base, { passEnv, extra })
    expect(Object.keys(env).filter(isRunnerFileCommand)).toEqual([])
    expect(env).toMatchObject({ PATH: '/usr/bin', RUNNER_TEMP: '/runner/_temp', GITHUB_WORKSPACE: '/work' })
  })
})

describe('isRunnerFileCommand / withoutRunnerFileCommands', () => {
  const table: Array<{ name: string; is: boolean }> = [
    ...RUNNER_FILE_COMMANDS.map((name) => ({ name, is: true })),
    { name: 'github_output', is: true },
    { name: 'GITHUB_WORKSPACE', is: false },
    { name: 'GITHUB_ENVIRONMENT', is: false },
    { name: 'RUNNER_TEMP', is: false },
  ]
  it.each(table)('$name: $is', ({ name, is }) => {
    expect(isRunnerFileCommand(name)).toBe(is)
    expect(name in withoutRunnerFileCommands({ [name]: 'x' })).toBe(!is)
  })
})

describe('tamperingOf', () => {
  const table: Array<{ case: string; expected: string; found: string; tampering: ReturnType<typeof tamperingOf> }> = [
    { case: 'unchanged', expected: 'a=1\n', found: 'a=1\n', tampering: null },
    { case: 'empty and unchanged', expected: '', found: '', tampering: null },
    {
      case: 'appended to an empty file',
      expected: '',
      found: 'LD_PRELOAD=/tmp/evil.so\n',
      tampering: { kind: 'appended', text: 'LD_PRELOAD=/tmp/evil.so\n' },
    },
    {
      case: "appended after the controller's text",
      expected: 'status<<d\nrunning\nd\n',
      found: 'status<<d\nrunning\nd\nstatus=complete\n',
      tampering: { kind: 'appended', text: 'status=complete\n' },
    },
    { case: 'truncated', expected: 'status=running\n', found: '', tampering: { kind: 'rewritten', text: '' } },
    {
      case: 'rewritten',
      expected: 'status=running\n',
      found: 'status=complete\n',
      tampering: { kind: 'rewritten', text: 'status=complete\n' },
    },
  ]
  it.each(table)('$case', ({ expected, found, tampering }) => {
    const bytes = (text: string) => new TextEncoder().encode(text)
    expect(tamperingOf(bytes(expected), bytes(found))).toEqual(tampering)
  })

  it('compares bytes, not their decoding: two invalid sequences are told apart', () => {
    expect(tamperingOf(Uint8Array.of(0xff), Uint8Array.of(0xfe))).toEqual({ kind: 'rewritten', text: '\ufffd' })
  })
})

describe('commandLabel', () => {
  const table: Array<{ command: string | string[]; label: string }> = [
    { command: 'npm test', label: 'npm test' },
    { command: ['claude', '-p', '--output-format', 'json'], label: 'claude -p --output-format json' },
    { command: 'set -e\nnpm ci\nnpm test', label: 'set -e …' },
    { command: `echo ${'x'.repeat(200)}`, label: `echo ${'x'.repeat(115)}…` },
  ]
  it.each(table)('$label', ({ command, label }) => {
    expect(commandLabel(command)).toBe(label)
  })
})

describe('tamperingWarning', () => {
  const table: Array<{ case: string; warning: string; says: string[] }> = [
    {
      case: 'one command appended',
      warning: tamperingWarning(
        'GITHUB_ENV',
        { commands: ['npm test'] },
        { kind: 'appended', text: 'LD_PRELOAD=/tmp/evil.so\n' },
      ),
      says: ["the command 'npm test' wrote to the runner's GITHUB_ENV file", 'appended "LD_PRELOAD=/tmp/evil.so\\n"'],
    },
    {
      case: 'commands side by side',
      warning: tamperingWarning('GITHUB_OUTPUT', { commands: ['a', 'b'] }, { kind: 'rewritten', text: 'x' }),
      says: ["one of the commands that ran side by side: 'a', 'b'", 'rewrote it as "x"'],
    },
    {
      case: 'a process left behind',
      warning: tamperingWarning('GITHUB_PATH', { after: 'the last command' }, { kind: 'replaced', what: 'a symlink' }),
      says: ['after the last project command', 'replaced it (a symlink)'],
    },
    {
      case: 'a long text is cut',
      warning: tamperingWarning(
        'GITHUB_STEP_SUMMARY',
        { commands: ['x'] },
        { kind: 'appended', text: 'y'.repeat(5000) },
      ),
      says: [`"${'y'.repeat(300)}…"`],
    },
  ]
  it.each(table)('$case', ({ warning, says }) => {
    for (const text of says) expect(warning).toContain(text)
    expect(warning).toContain('put back its own text')
    expect(warning.length).toBeLessThan(1000)
  })
})
