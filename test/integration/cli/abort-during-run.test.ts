import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loopStateSchema } from '../../../src/domain/state.js'
import { cli, tempRepo } from './helpers.js'

/** Polls until `path` exists (the scripted work reached its waiting point). */
async function waitFor(path: string, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs
  while (!existsSync(path)) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${path}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** A loop whose check never passes, so it would run to its cap; the work of iteration `pauseAt` waits for `go`. */
function pausingRepo(signals: string, pauseAt: number): string {
  const work =
    `echo "$LOOP_ITERATION" >> "${signals}/worked"; ` +
    `if [ "$LOOP_ITERATION" = ${pauseAt} ]; then touch "${signals}/started"; ` +
    `i=0; while [ ! -f "${signals}/go" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; fi`
  return tempRepo({
    files: {
      '.github/loop.yml': [
        'goal: Never finishes on its own.',
        'max-iterations: 6',
        'work:',
        `  run: ${JSON.stringify(work)}`,
        'checks:',
        '  - name: never',
        '    kind: test',
        `    run: "echo still failing $(date +%s%N); exit 1"`,
        '',
      ].join('\n'),
    },
  })
}

describe('abort from another terminal while run iterates', () => {
  it('stops after the current iteration is saved, before the next work, and exits 6 ABORTED with the reason', async () => {
    const signals = mkdtempSync(join(tmpdir(), 'loop-abort-'))
    const repo = pausingRepo(signals, 2)
    const running = cli(repo, 'run', '--loop-id', 'stop-me')
    await waitFor(join(signals, 'started'))
    const abort = await cli(repo, 'abort', '--loop-id', 'stop-me', '--reason', 'wrong approach, starting over')
    expect(abort.stderr).toBe('')
    expect(abort.code).toBe(0)
    writeFileSync(join(signals, 'go'), '')
    const run = await running

    expect(run.stdout).not.toContain('SUPERSEDED')
    expect(run.stdout).toContain('ABORTED')
    expect(run.stdout).toContain('wrong approach, starting over')
    expect(run.code).toBe(6)
    // The work of the next iteration never started.
    expect(readFileSync(join(signals, 'worked'), 'utf8').trim().split('\n')).toEqual(['1', '2'])
    // The iteration that was running when the abort came is saved, and the loop stays aborted.
    const state = loopStateSchema.parse(
      JSON.parse(readFileSync(join(repo, '.loop', 'stop-me', 'loop-state.json'), 'utf8')),
    )
    expect(state.status).toBe('aborted')
    expect(state.iteration).toBe(2)
    expect(state.lastVerification?.iteration).toBe(2)
    expect(state.statusReason).toContain('wrong approach, starting over')

    const status = await cli(repo, 'status', '--loop-id', 'stop-me')
    expect(status.code).toBe(6)
    expect(status.stdout).toContain('wrong approach, starting over')
    const history = await cli(repo, 'history', '--loop-id', 'stop-me')
    expect(history.stdout).toContain('wrong approach, starting over')
    const final = readFileSync(join(repo, '.loop', 'stop-me', 'final.md'), 'utf8')
    expect(final).toContain('wrong approach, starting over')

    // A later run does not start it again.
    const again = await cli(repo, 'run', '--loop-id', 'stop-me')
    expect(again.code).toBe(6)
    expect(readFileSync(join(signals, 'worked'), 'utf8').trim().split('\n')).toEqual(['1', '2'])
  }, 120_000)

  it('abort during the first iteration, before the loop was ever saved, still stops it', async () => {
    const signals = mkdtempSync(join(tmpdir(), 'loop-abort-'))
    const repo = pausingRepo(signals, 1)
    const running = cli(repo, 'run', '--loop-id', 'first')
    await waitFor(join(signals, 'started'))
    const abort = await cli(repo, 'abort', '--loop-id', 'first', '--reason', 'not today')
    expect(abort.stderr).toBe('')
    expect(abort.code).toBe(0)
    writeFileSync(join(signals, 'go'), '')
    const run = await running
    expect(run.stdout).toContain('ABORTED')
    expect(run.code).toBe(6)
    expect(readFileSync(join(signals, 'worked'), 'utf8').trim().split('\n')).toEqual(['1'])
    const state = loopStateSchema.parse(
      JSON.parse(readFileSync(join(repo, '.loop', 'first', 'loop-state.json'), 'utf8')),
    )
    expect(state.status).toBe('aborted')
    expect(state.iteration).toBe(1)
  }, 120_000)

  it('abort before any run records an aborted loop, so a later run does not start it', async () => {
    const signals = mkdtempSync(join(tmpdir(), 'loop-abort-'))
    const repo = pausingRepo(signals, 99)
    const abort = await cli(repo, 'abort', '--loop-id', 'early', '--reason', 'changed my mind')
    expect(abort.stderr).toBe('')
    expect(abort.code).toBe(0)
    expect(abort.stdout).toContain('changed my mind')
    const run = await cli(repo, 'run', '--loop-id', 'early')
    expect(run.code).toBe(6)
    expect(run.stdout).toContain('ABORTED')
    expect(run.stdout).toContain('changed my mind')
    expect(existsSync(join(signals, 'worked'))).toBe(false)
  }, 60_000)
})
