/**
 * Planted attack: a command run for the loop (the agent, a check) reads every /proc/<pid>/environ it
 * can, looking for the job's runtime token in the controller's own environment. Scrubbing the
 * command's environment cannot stop that (same user); the command's own PID namespace does.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chooseIsolation } from '../../src/adapters/isolation.js'
import { ChildProcessRunner } from '../../src/adapters/process-runner.js'
import { isolationLine } from '../../src/domain/isolation.js'
import { tempDir } from '../integration/local/helpers.js'

const dir = tempDir('loop-isolation-')
const TOKEN = `planted-runtime-token-${process.pid}`
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir }
// What the attacker runs: every environ it can read, searched for the token.
const READ_EVERY_ENVIRON = `for f in /proc/[0-9]*/environ; do { tr '\\0' '\\n' < "$f"; } 2>/dev/null; done | grep -c '${TOKEN}' || true`

const plan = chooseIsolation('auto')
const isolated = new ChildProcessRunner({ isolationPrefix: plan.prefix, killGraceMs: 300, pipeGraceMs: 200 })
const bare = new ChildProcessRunner()
const run = (runner: ChildProcessRunner, command: string | string[], extra = {}) =>
  runner.run({ command, cwd: dir, env, timeoutMs: 15_000, ...extra })

// The controller: a process of the same user that holds the job's token in its environment, as the
// action's node process does on a runner (a variable set later in this process would not show in its
// /proc environ, which is the environment it started with).
let controller: ChildProcess
beforeAll(() => {
  controller = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], {
    env: { ...env, ACTIONS_RUNTIME_TOKEN: TOKEN },
    stdio: 'ignore',
  })
})
afterAll(() => {
  controller.kill('SIGKILL')
})

describe.runIf(plan.report.level === 'pid-namespace')('commands in their own PID namespace', () => {
  it('the attack works without isolation: the token is in the controller process', async () => {
    const result = await run(bare, READ_EVERY_ENVIRON)
    expect(Number(result.output.trim())).toBeGreaterThan(0)
  })

  it('with isolation the command sees no process of the controller and reads no token', async () => {
    const result = await run(isolated, READ_EVERY_ENVIRON)
    expect(result.output.trim()).toBe('0')
    const seen = await run(isolated, `test -e /proc/${controller.pid} && echo visible || echo hidden`)
    expect(seen.output.trim()).toBe('hidden')
  })

  it('reports truly whether a command inside can make its own sandbox (a user namespace)', async () => {
    const result = await run(isolated, ['unshare', '--user', '--map-current-user', 'true'])
    expect(plan.report.nestedSandbox).toBe(result.exitCode === 0)
    // Root without capabilities cannot map uid 0 into a new user namespace: no sandbox of its own.
    if (process.getuid?.() === 0) expect(plan.report.nestedSandbox).toBe(false)
  })

  it('cannot unmount its /proc or gain privileges to look outside', async () => {
    const result = await run(isolated, 'umount /proc 2>&1; mount -t proc proc /mnt 2>&1; echo done')
    expect(result.output).toContain('done')
    const after = await run(isolated, READ_EVERY_ENVIRON)
    expect(after.output.trim()).toBe('0')
  })

  it('keeps what a command needs: standard input, output through a pipe, its exit code, its tools', async () => {
    const prompt = join(dir, 'prompt.md')
    writeFileSync(prompt, '# Goal\nrepair\n')
    const piped = await run(isolated, ['node', '-e', 'process.stdin.pipe(process.stdout)'], {
      stdinFile: prompt,
      captureStdout: true,
    })
    expect(piped.stdout).toBe('# Goal\nrepair\n')
    const shell = await run(isolated, 'echo "BLOCKED: which currency?" | tee /dev/stderr; exit 3')
    expect(shell.exitCode).toBe(3)
    expect(shell.output).toContain('BLOCKED: which currency?')
  })

  it('still stops a command at its time limit, with everything it started', async () => {
    const started = Date.now()
    const result = await run(isolated, 'sleep 30 & sleep 30; echo never', { timeoutMs: 500 })
    expect(result.timedOut).toBe(true)
    expect(result.output).not.toContain('never')
    expect(Date.now() - started).toBeLessThan(10_000)
  })
})

describe('what the run says about its isolation', () => {
  it('names the isolation in force, and says it loudly when there is none', () => {
    expect(isolationLine(plan.report)).toMatch(plan.report.level === 'none' ? /No isolation/ : /own PID namespace/)
    const none = chooseIsolation('none')
    expect(none.prefix).toEqual([])
    expect(isolationLine(none.report)).toMatch(/⚠️ No isolation: .*can read its environment/)
  })

  it('refuses pid-namespace where the platform has none', () => {
    expect(() => chooseIsolation('pid-namespace', 'darwin')).toThrow(
      /isolation 'pid-namespace' is not available: PID namespaces are a Linux feature; this is darwin/,
    )
  })
})
