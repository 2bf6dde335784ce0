import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ChildProcessRunner, HeadTailBuffer } from '../../../src/adapters/process-runner.js'
import { baseEnv, eventually, isAlive, tempDir } from './helpers.js'

const dir = tempDir('loop-runner-')
const runner = new ChildProcessRunner({ killGraceMs: 400, pipeGraceMs: 200 })
const run = (command: string | string[], extra: Partial<Parameters<typeof runner.run>[0]> = {}) =>
  runner.run({ command, cwd: dir, env: baseEnv, timeoutMs: 10_000, ...extra })

/** The pids a command printed, one per line. */
const pidsIn = (output: string): number[] => (output.match(/^\d+$/gm) ?? []).map(Number)

describe('ChildProcessRunner', () => {
  it('runs a shell line with bash and reports exit code and combined output', async () => {
    const result = await run('echo out; echo err >&2; exit 7')
    expect(result.exitCode).toBe(7)
    expect(result.signal).toBeNull()
    expect(result.timedOut).toBe(false)
    expect(result.output).toContain('out\n')
    expect(result.output).toContain('err\n')
    expect(result.totalBytes).toBe(8)
    expect(result.truncated).toBe(false)
    expect(result.spawnError).toBeUndefined()
  })

  it('gives a shell line real pipes, so /dev/stdout and /dev/stderr can be opened (tee /dev/stderr)', async () => {
    const result = await run('echo hi | tee /dev/stderr; echo direct > /dev/stdout; loop-no-such-xyz; exit 4')
    expect(result.output).not.toMatch(/No such device or address/)
    expect(result.output.match(/^hi$/gm)).toHaveLength(2)
    expect(result.output).toContain('direct\n')
    expect(result.output).toContain('bash: line 1: loop-no-such-xyz: command not found')
    expect(result.exitCode).toBe(4)
  })

  it('spawns an argv array with no shell: metacharacters stay literal', async () => {
    const result = await run(['echo', '$(id -u); rm -rf /', '`whoami`'])
    expect(result.exitCode).toBe(0)
    expect(result.output).toBe('$(id -u); rm -rf / `whoami`\n')
  })

  it('hands the command exactly the environment it is given, in the given folder', async () => {
    const line = 'echo "$LOOP_X|$' + '{GITHUB_TOKEN:-none}|$PWD"'
    const result = await run(line, { env: { ...baseEnv, LOOP_X: 'yes' } })
    expect(result.output.trim()).toBe(`yes|none|${dir}`)
  })

  it('reports a command that does not exist as a spawn error, never a throw', async () => {
    const result = await run(['loop-no-such-command-xyz', '--help'])
    expect(result.exitCode).toBeNull()
    expect(result.spawnError).toMatch(/ENOENT/)
    const shell = await run('loop-no-such-command-xyz')
    expect(shell.exitCode).toBe(127)
    expect(shell.output).toMatch(/command not found/)
  })

  it('reports a missing working folder and an empty command clearly', async () => {
    const missing = await run('true', { cwd: join(dir, 'nope') })
    expect(missing.spawnError).toBe(`working directory '${join(dir, 'nope')}' does not exist`)
    const empty = await run([])
    expect(empty.spawnError).toMatch(/empty/)
    const file = join(dir, 'a-file')
    writeFileSync(file, '')
    const badLog = await run('true', { logFile: join(file, 'x.log') })
    expect(badLog.spawnError).toMatch(/could not create the folder of log file/)
  })

  it('stops a command that hangs at its timeout, with its whole tree', async () => {
    const result = await run('sleep 30 & echo $!; sleep 30', { timeoutMs: 300 })
    expect(result.timedOut).toBe(true)
    expect(result.exitCode).toBeNull()
    expect(result.signal).toBe('SIGTERM')
    expect(result.durationMs).toBeLessThan(3000)
    const [grandchild] = pidsIn(result.output)
    expect(grandchild).toBeDefined()
    expect(await eventually(() => !isAlive(grandchild!))).toBe(true)
  })

  it('kills a tree that ignores SIGTERM after the grace period', async () => {
    const result = await run("trap '' TERM; sleep 30 & echo $!; while :; do sleep 0.05; done", { timeoutMs: 300 })
    expect(result.timedOut).toBe(true)
    expect(result.signal).toBe('SIGKILL')
    expect(result.durationMs).toBeGreaterThanOrEqual(600)
    expect(result.durationMs).toBeLessThan(4000)
    const [grandchild] = pidsIn(result.output)
    expect(await eventually(() => !isAlive(grandchild!))).toBe(true)
  })

  it('does not wait on a grandchild that keeps the pipe open after the main child exits', async () => {
    const result = await run('sleep 30 & echo $!; echo done; exit 0', { timeoutMs: 20_000 })
    expect(result.exitCode).toBe(0)
    expect(result.timedOut).toBe(false)
    expect(result.output).toContain('done')
    expect(result.durationMs).toBeLessThan(3000)
    const [grandchild] = pidsIn(result.output)
    expect(await eventually(() => !isAlive(grandchild!))).toBe(true)
  })

  it('treats a timeout too long for a timer as no timeout at all', async () => {
    const result = await run('sleep 0.1; echo fine', { timeoutMs: Number.POSITIVE_INFINITY })
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, output: 'fine\n' })
  })

  it('stops the tree when the caller aborts', async () => {
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 200)
    const result = await run('sleep 30', { signal: controller.signal })
    expect(result.timedOut).toBe(false)
    expect(result.signal).toBe('SIGTERM')
  })

  it('keeps head and tail with a marker, streams every chunk and writes the full log', async () => {
    const logFile = join(dir, 'logs', 'ab.log')
    let streamed = 0
    const result = await run("head -c 100000 /dev/zero | tr '\\0' A; head -c 100000 /dev/zero | tr '\\0' B", {
      keepBytes: 1000,
      logFile,
      onOutput: (chunk) => {
        streamed += chunk.length
      },
    })
    expect(result.totalBytes).toBe(200_000)
    expect(streamed).toBe(200_000)
    expect(result.truncated).toBe(true)
    expect(result.output).toBe(`${'A'.repeat(1000)}\n… [198000 bytes omitted] …\n${'B'.repeat(1000)}`)
    expect(statSync(logFile).size).toBe(200_000)
    expect(result.logFile).toBe(logFile)
  })

  it('still captures output when the log file cannot be written', async () => {
    const folder = join(dir, 'a-folder')
    mkdirSync(folder)
    const result = await run('head -c 3000000 /dev/zero; echo end', { logFile: folder, keepBytes: 10 })
    expect(result.exitCode).toBe(0)
    expect(result.totalBytes).toBe(3_000_004)
    expect(result.output).toMatch(/could not write the log file: EISDIR/)
  })

  it('stores output as UTF-8 with invalid bytes replaced', async () => {
    const result = await run("printf 'ok \\xff\\xfe é'")
    expect(result.output).toBe('ok \uFFFD\uFFFD é')
  })

  it('keeps memory and the log bounded when a check prints 200 MB', async () => {
    const logFile = join(dir, 'big.log')
    const before = process.memoryUsage().rss
    let peak = before
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss)
    }, 20)
    const result = await run('head -c 200000000 /dev/zero', { logFile, maxLogBytes: 8 * 1024 * 1024 })
    clearInterval(sampler)
    expect(result.exitCode).toBe(0)
    expect(result.totalBytes).toBe(200_000_000)
    expect(result.truncated).toBe(true)
    expect(result.output.length).toBeLessThan(2 * 64 * 1024 + 100)
    const log = readFileSync(logFile)
    expect(log.length).toBeLessThan(8 * 1024 * 1024 + 200)
    expect(log.subarray(-120).toString()).toContain('log truncated at 8388608 bytes')
    // Generous: capturing it all would cost well over 200 MB.
    expect(peak - before).toBeLessThan(120 * 1024 * 1024)
  })
})

describe('HeadTailBuffer', () => {
  it('keeps everything when the stream fits in head plus tail', () => {
    const buffer = new HeadTailBuffer(4)
    for (const piece of ['ab', 'cdef', 'gh']) buffer.push(Buffer.from(piece))
    expect(buffer.text()).toBe('abcdefgh')
    expect(buffer.truncated).toBe(false)
  })

  it('drops characters cut in half at the edges of the omitted middle', () => {
    const buffer = new HeadTailBuffer(4)
    buffer.push(Buffer.from('abcé' + 'x'.repeat(10) + 'éyzw'))
    expect(buffer.truncated).toBe(true)
    expect(buffer.text()).toBe('abc\n… [12 bytes omitted] …\nyzw')
  })
})

describe('ChildProcessRunner: what an agent call needs', () => {
  it('hands a file on standard input and keeps standard output apart', async () => {
    const prompt = join(dir, 'prompt.md')
    writeFileSync(prompt, '# Goal\nfix the cart\n')
    const result = await run(['node', '-e', "process.stdin.pipe(process.stdout); console.error('noise')"], {
      stdinFile: prompt,
      captureStdout: true,
    })
    expect(result.stdout).toBe('# Goal\nfix the cart\n')
    expect(result.output).toContain('noise')
  })

  it('masks a secret in the log and the output even when it arrives split across writes', async () => {
    const secret = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz'
    const masking = new ChildProcessRunner({ redact: (text) => text.replaceAll(secret, '***') })
    const logFile = join(dir, 'masked.log')
    // The secret is written in two halves with a pause between them, so it reaches the pipe in two chunks.
    const script = `process.stdout.write('key=${secret.slice(0, 10)}'); setTimeout(() => process.stdout.write('${secret.slice(10)} end\\n'), 150)`
    const result = await masking.run({
      command: ['node', '-e', script],
      cwd: dir,
      env: baseEnv,
      timeoutMs: 10_000,
      logFile,
      captureStdout: true,
    })
    expect(readFileSync(logFile, 'utf8')).toBe('key=*** end\n')
    expect(result.output).toBe('key=*** end\n')
    expect(result.stdout).toBe('key=*** end\n')
  })
})
