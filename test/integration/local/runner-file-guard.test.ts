/**
 * The runner file guard against real child processes that plant what the auditor's attack plants: an
 * `LD_PRELOAD` in GITHUB_ENV, a folder first on GITHUB_PATH, a forged `status` output, a GITHUB_STATE
 * entry and summary text, found by listing `$RUNNER_TEMP/_runner_file_commands` (the variables are not
 * handed on). After each command the files hold the controller's own text again, and a warning says so.
 */
import {
  appendFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ChildProcessRunner } from '../../../src/adapters/process-runner.js'
import { RunnerFileGuard, runnerFileCommandPaths } from '../../../src/adapters/runner-file-guard.js'
import { RUNNER_FILE_COMMANDS } from '../../../src/domain/runner-file-commands.js'
import { baseEnv, eventually, tempDir } from './helpers.js'

/** A step's runner files, as the runner makes them: empty, in `$RUNNER_TEMP/_runner_file_commands`. */
function runnerStep() {
  const temp = tempDir('loop-runner-files-')
  const folder = join(temp, '_runner_file_commands')
  mkdirSync(folder)
  const env: Record<string, string> = { ...baseEnv, RUNNER_TEMP: temp }
  for (const [file, name] of [
    ['GITHUB_ENV', 'set_env'],
    ['GITHUB_PATH', 'add_path'],
    ['GITHUB_OUTPUT', 'set_output'],
    ['GITHUB_STATE', 'save_state'],
    ['GITHUB_STEP_SUMMARY', 'step_summary'],
  ] as const) {
    env[file] = join(folder, `${name}_0b6e2c`)
    writeFileSync(env[file], '')
  }
  const warnings: string[] = []
  const infos: string[] = []
  const guard = new RunnerFileGuard(runnerFileCommandPaths(env), {
    warn: (message) => warnings.push(message),
    info: (message) => infos.push(message),
  })
  const runner = guard.runner(new ChildProcessRunner({ killGraceMs: 400, pipeGraceMs: 200 }))
  const run = (command: string) => runner.run({ command, cwd: temp, env, timeoutMs: 20_000 })
  const text = (file: string) => readFileSync(env[file] as string, 'utf8')
  /** What `@actions/core`'s setOutput appends (the action's outputs are written by the guard). */
  const setOutput = (name: string, value: string) =>
    guard.appendOwn('GITHUB_OUTPUT', `${name}<<ghadelimiter_1\n${value}\nghadelimiter_1\n`)
  return { temp, folder, env, guard, run, text, setOutput, warnings, infos }
}

/** The attack: every file command found by listing the folder, written as the runner reads them. */
const PLANT = [
  'cd "$RUNNER_TEMP/_runner_file_commands"',
  'echo "LD_PRELOAD=/tmp/evil-1.so" >> set_env_*',
  'printf "BASH_ENV<<EOF\\n/tmp/evil.sh\\nEOF\\n" >> set_env_*',
  'echo /tmp/evil-bin >> add_path_*',
  'echo status=complete >> set_output_*',
  'echo "token=stolen" >> save_state_*',
  'echo "## All checks passed" >> step_summary_*',
].join('\n')

describe('RunnerFileGuard', () => {
  it('hands no command the file commands’ variables', async () => {
    const step = runnerStep()
    const result = await step.run('env')
    const names = result.output.split('\n').map((line) => line.slice(0, line.indexOf('=')))
    expect(names).toContain('RUNNER_TEMP')
    for (const file of RUNNER_FILE_COMMANDS) expect(names).not.toContain(file)
  })

  it('puts back what a command planted in each file, keeps the controller’s own outputs, and says who wrote', async () => {
    const step = runnerStep()
    step.setOutput('loop-id', 'demo')
    const before = step.text('GITHUB_OUTPUT')
    const result = await step.run(`${PLANT}\necho planted`)
    expect(result.output).toBe('planted\n')

    expect(step.text('GITHUB_OUTPUT')).toBe(before)
    for (const file of ['GITHUB_ENV', 'GITHUB_PATH', 'GITHUB_STATE', 'GITHUB_STEP_SUMMARY']) {
      expect(step.text(file)).toBe('')
    }
    expect(step.guard.found.map((found) => found.file).sort()).toEqual([...RUNNER_FILE_COMMANDS].sort())
    const env = step.warnings.find((warning) => warning.includes('GITHUB_ENV')) ?? ''
    expect(env).toContain('the command \'cd "$RUNNER_TEMP/_runner_file_commands" …\'')
    expect(env).toContain('LD_PRELOAD=/tmp/evil-1.so')
    expect(env).toContain('BASH_ENV<<EOF')
    expect(step.warnings.find((warning) => warning.includes('GITHUB_OUTPUT'))).toContain('status=complete')

    // The controller's later writes are its own again, and held with the earlier ones.
    step.setOutput('status', 'running')
    await step.run('true')
    expect(step.text('GITHUB_OUTPUT')).toBe(`${before}status<<ghadelimiter_1\nrunning\nghadelimiter_1\n`)
    expect(step.guard.putBackAtExit()).toEqual([])
    expect(step.warnings).toHaveLength(RUNNER_FILE_COMMANDS.length)
  })

  it('puts back a file a command cut or rewrote', async () => {
    const step = runnerStep()
    step.setOutput('status', 'running')
    const held = step.text('GITHUB_OUTPUT')
    await step.run('cd "$RUNNER_TEMP/_runner_file_commands" && echo status=complete > set_output_*')
    expect(step.text('GITHUB_OUTPUT')).toBe(held)
    expect(step.guard.found.map((found) => found.tampering)).toEqual([{ kind: 'rewritten', text: 'status=complete\n' }])
  })

  it('replaces a planted symlink without writing through it, and recreates a removed file', async () => {
    const step = runnerStep()
    step.setOutput('status', 'running')
    const held = step.text('GITHUB_OUTPUT')
    const victim = join(step.temp, 'victim.txt')
    writeFileSync(victim, 'keep me\n')
    const result = await step.run(
      `cd "$RUNNER_TEMP/_runner_file_commands" && ln -s ${victim} planted-link && mv -f planted-link set_output_0b6e2c && rm add_path_0b6e2c`,
    )
    expect(result.exitCode).toBe(0)
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n')
    expect(step.text('GITHUB_OUTPUT')).toBe(held)
    expect(existsSync(step.env.GITHUB_PATH as string)).toBe(true)
    expect(step.text('GITHUB_PATH')).toBe('')
    expect(step.guard.found.map((found) => [found.file, found.tampering])).toEqual([
      ['GITHUB_PATH', { kind: 'replaced', what: 'the file was removed' }],
      ['GITHUB_OUTPUT', { kind: 'replaced', what: 'a symlink' }],
    ])
  })

  it('puts the controller’s text back where a command removed the whole folder', async () => {
    const step = runnerStep()
    step.setOutput('status', 'running')
    const held = step.text('GITHUB_OUTPUT')
    await step.run('rm -rf "$RUNNER_TEMP/_runner_file_commands"')
    expect(step.text('GITHUB_OUTPUT')).toBe(held)
    expect(step.text('GITHUB_ENV')).toBe('')
    expect(step.guard.found).toHaveLength(RUNNER_FILE_COMMANDS.length)
  })

  it('names every command that ran beside the one that planted', async () => {
    const step = runnerStep()
    const go = join(step.temp, 'go')
    const [planter] = await Promise.all([
      step.run(`echo LD_PRELOAD=/tmp/evil-2.so >> "$RUNNER_TEMP"/_runner_file_commands/set_env_*; touch ${go}`),
      step.run(`while [ ! -e ${go} ]; do sleep 0.02; done; echo quiet neighbour`),
    ])
    expect(planter.exitCode).toBe(0)
    expect(step.text('GITHUB_ENV')).toBe('')
    expect(step.warnings).toHaveLength(1)
    expect(step.warnings[0]).toContain('LD_PRELOAD=/tmp/evil-2.so')
    expect(step.warnings[0]).toContain('echo LD_PRELOAD')
  })

  it('puts back, at the step’s end, what a process a command left behind wrote after it', async () => {
    const step = runnerStep()
    const planted = join(step.temp, 'planted')
    const detached = join(step.temp, 'detached')
    // setsid leaves the command's process group, which the process runner kills when the command ends
    // (so the command waits until it has left).
    await step.run(
      [
        `setsid sh -c 'touch ${detached}; sleep 0.3; echo LD_PRELOAD=/tmp/late.so >> "$RUNNER_TEMP"/_runner_file_commands/set_env_0b6e2c; touch ${planted}' </dev/null >/dev/null 2>&1 &`,
        `while [ ! -e ${detached} ]; do sleep 0.02; done`,
      ].join('\n'),
    )
    expect(await eventually(() => existsSync(planted), 10_000)).toBe(true)
    expect(step.text('GITHUB_ENV')).toBe('LD_PRELOAD=/tmp/late.so\n')
    const last = step.guard.putBackAtExit()
    expect(last.map((found) => [found.file, found.writers])).toEqual([['GITHUB_ENV', { after: 'the last command' }]])
    expect(step.text('GITHUB_ENV')).toBe('')
    expect(step.warnings[0]).toContain('after the last project command')
  })

  it('puts back what a leftover wrote before the controller writes, so it is never taken for the controller’s', async () => {
    const step = runnerStep()
    step.setOutput('status', 'running')
    const held = step.text('GITHUB_OUTPUT')
    appendFileSync(step.env.GITHUB_OUTPUT as string, 'verdict=pass\n')
    step.setOutput('pattern', 'none')
    expect(step.text('GITHUB_OUTPUT')).toBe(`${held}pattern<<ghadelimiter_1\nnone\nghadelimiter_1\n`)
    expect(step.warnings[0]).toContain('between the project commands')
    expect(step.warnings[0]).toContain('verdict=pass')
  })

  it('never adopts what a leftover process re-plants in a loop while the controller writes its outputs', async () => {
    const step = runnerStep()
    const started = join(step.temp, 'started')
    const stop = join(step.temp, 'stop')
    const stopped = join(step.temp, 'stopped')
    const replant = `cd "$RUNNER_TEMP/_runner_file_commands"; touch ${started}; while [ ! -e ${stop} ]; do echo LD_PRELOAD=/tmp/evil.so >> set_env_0b6e2c; echo status=complete >> set_output_0b6e2c; done; touch ${stopped}`
    await step.run(
      `setsid sh -c '${replant}' </dev/null >/dev/null 2>&1 &\nwhile [ ! -e ${started} ]; do sleep 0.02; done`,
    )
    let outputs = ''
    for (let index = 0; index < 300; index++) {
      step.setOutput(`out-${index}`, 'value')
      outputs += `out-${index}<<ghadelimiter_1\nvalue\nghadelimiter_1\n`
    }
    writeFileSync(stop, '')
    expect(await eventually(() => existsSync(stopped), 10_000)).toBe(true)
    step.guard.putBackAtExit()
    expect(step.text('GITHUB_ENV')).toBe('')
    expect(step.text('GITHUB_OUTPUT')).toBe(outputs)
  })

  it('puts back a file a command replaced with a folder, warning first', async () => {
    const step = runnerStep()
    step.setOutput('status', 'running')
    const held = step.text('GITHUB_OUTPUT')
    const result = await step.run(
      'cd "$RUNNER_TEMP/_runner_file_commands" && rm set_output_0b6e2c && mkdir -p set_output_0b6e2c/inside && touch set_output_0b6e2c/inside/file',
    )
    expect(result.exitCode).toBe(0)
    expect(lstatSync(step.env.GITHUB_OUTPUT as string).isFile()).toBe(true)
    expect(step.text('GITHUB_OUTPUT')).toBe(held)
    expect(step.guard.found.map((found) => [found.file, found.tampering])).toEqual([
      ['GITHUB_OUTPUT', { kind: 'replaced', what: 'no regular file' }],
    ])
    expect(step.warnings).toHaveLength(1)
  })

  it('holds only paths that are regular files when it is made, and says which it leaves', async () => {
    const temp = tempDir('loop-runner-files-odd-')
    const victim = join(temp, 'victim.md')
    writeFileSync(victim, '# kept\n')
    const summary = join(temp, 'step_summary_link')
    symlinkSync(victim, summary)
    const missing = join(temp, 'set_output_missing')
    const env = { ...baseEnv, GITHUB_OUTPUT: missing, GITHUB_STEP_SUMMARY: summary }
    const warnings: string[] = []
    const infos: string[] = []
    const guard = new RunnerFileGuard(runnerFileCommandPaths(env), {
      warn: (message) => warnings.push(message),
      info: (message) => infos.push(message),
    })
    expect(guard.holds('GITHUB_OUTPUT')).toBe(false)
    expect(guard.holds('GITHUB_STEP_SUMMARY')).toBe(false)
    expect(infos).toHaveLength(2)
    expect(infos[0]).toContain(`GITHUB_OUTPUT (${missing}) does not exist, so it is not guarded`)
    expect(infos[1]).toContain(`GITHUB_STEP_SUMMARY (${summary}) is a symlink, so it is not guarded`)
    await guard.runner(new ChildProcessRunner({ killGraceMs: 400, pipeGraceMs: 200 })).run({
      command: 'true',
      cwd: temp,
      env,
      timeoutMs: 20_000,
    })
    expect(guard.putBackAtExit()).toEqual([])
    expect(warnings).toEqual([])
    expect(existsSync(missing)).toBe(false)
    expect(readlinkSync(summary)).toBe(victim)
    expect(readFileSync(victim, 'utf8')).toBe('# kept\n')
  })
})
