import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loopStateSchema } from '../../../src/domain/state.js'
import { cli, git, tempRepo } from './helpers.js'

describe('loop-controller run on the demo project', () => {
  it('goes from red to COMPLETE over several iterations, with checkpoints and an audit trail', async () => {
    const repo = tempRepo({ demo: true })
    const run = await cli(repo, 'run', '--loop-id', 'demo')
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/COMPLETE in \d+ iterations/)
    // The analysis is shown as it happens.
    expect(run.stdout).toContain('type-error')
    expect(run.stdout).toContain('test-failure')

    const state = loopStateSchema.parse(
      JSON.parse(readFileSync(join(repo, '.loop', 'demo', 'loop-state.json'), 'utf8')),
    )
    expect(state.status).toBe('complete')
    expect(state.stage).toBe('COMPLETE')
    expect(state.iteration).toBeGreaterThanOrEqual(2)
    expect(state.iteration).toBeLessThanOrEqual(8)
    // Format and lint were repaired by their fix commands, not by the agent.
    expect(state.metrics.autoFixes).toBeGreaterThanOrEqual(2)
    expect(state.metrics.workCalls).toBe(state.iteration)

    // One checkpoint commit per iteration that changed something, and each fix the controller ran in a
    // commit of its own (`loop(demo): <check>: <fix command>`); .loop/ never committed.
    const subjects = git(repo, 'log', '--format=%s')
      .split('\n')
      .filter((line) => line.startsWith('loop(demo): '))
    expect(subjects.length).toBe(state.checkpoints.length)
    expect(subjects.filter((line) => line.startsWith('loop(demo): iteration')).length).toBeLessThanOrEqual(
      state.iteration,
    )
    const fixCommits = subjects.filter((line) => /^loop\(demo\): (format|lint): biome /.test(line))
    expect(fixCommits.map((line) => line.split(':')[1]?.trim()).sort()).toEqual(['format', 'lint'])
    expect(fixCommits.length + subjects.filter((line) => line.startsWith('loop(demo): iteration')).length).toBe(
      subjects.length,
    )
    expect(git(repo, 'ls-files')).not.toContain('.loop')
    expect(git(repo, 'status', '--porcelain')).toBe('')

    for (let n = 1; n <= state.iteration; n++)
      expect(existsSync(join(repo, '.loop', 'demo', 'iterations', `${n}.md`))).toBe(true)
    const final = readFileSync(join(repo, '.loop', 'demo', 'final.md'), 'utf8')
    expect(final).toContain('COMPLETE')
    const events = readFileSync(join(repo, '.loop', 'demo', 'journey-log.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string })
    expect(events.map((e) => e.type)).toContain('completed')

    // Once complete, running again changes nothing and says so.
    const again = await cli(repo, 'run', '--loop-id', 'demo')
    expect(again.code).toBe(0)
    expect(again.stdout).toContain('COMPLETE')
    const status = await cli(repo, 'status', '--loop-id', 'demo')
    expect(status.stdout).toMatch(/demo · COMPLETE · complete · iteration \d+ of 8/)
    const history = await cli(repo, 'history', '--loop-id', 'demo')
    expect(history.stdout).toContain('#1')
  }, 120_000)
})

describe('simple mode', () => {
  it('runs without a config file, and stops at the cap with exit 5 when the verifier never passes', async () => {
    const repo = tempRepo()
    const run = await cli(
      repo,
      'run',
      '--work',
      'echo working',
      '--verify',
      'test -f done.txt',
      '--max-iterations',
      '2',
      '--loop-id',
      'simple',
    )
    expect(run.code).toBe(5)
    expect(run.stdout).toContain('CAP REACHED at iteration 2')
    const state = JSON.parse(readFileSync(join(repo, '.loop', 'simple', 'loop-state.json'), 'utf8'))
    expect(state.iteration).toBe(2)
    expect(state.status).toBe('capped')
  }, 60_000)

  it('completes when the work command makes the verifier pass', async () => {
    const repo = tempRepo()
    const run = await cli(repo, 'run', '--work', 'touch done.txt', '--verify', 'test -f done.txt', '--loop-id', 'ok')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('COMPLETE in 1 iteration')
  }, 60_000)

  it('is BLOCKED with exit 3 when the work command asks for a human', async () => {
    const repo = tempRepo()
    const run = await cli(
      repo,
      'run',
      '--work',
      'echo "BLOCKED: which currency?"; exit 3',
      '--verify',
      'false',
      '--loop-id',
      'ask',
    )
    expect(run.code).toBe(3)
    expect(run.stdout).toContain('which currency?')
    const resumed = await cli(repo, 'resume', '--loop-id', 'ask')
    expect(resumed.code).toBe(0)
    expect(resumed.stdout).toContain('running')
  }, 60_000)

  it('hands the work command the contract variables and reads usage back', async () => {
    const repo = tempRepo()
    const work = [
      'node',
      '-e',
      `const fs=require('fs');fs.writeFileSync('seen.json',JSON.stringify({prompt:fs.readFileSync(process.env.LOOP_PROMPT_FILE,'utf8'),ctx:JSON.parse(fs.readFileSync(process.env.LOOP_CONTEXT_FILE,'utf8')),it:process.env.LOOP_ITERATION,stage:process.env.LOOP_STAGE,session:process.env.LOOP_SESSION}));fs.writeFileSync(process.env.LOOP_OUTPUT_FILE,JSON.stringify({usage:{tokens:1234,costUsd:0.12},session:'s-'+process.env.LOOP_ITERATION}))`,
    ]
      .map((part) => `'${part.replace(/'/g, `'\\''`)}'`)
      .join(' ')
    const run = await cli(
      repo,
      'next',
      '--work',
      work,
      '--verify',
      'test -f never',
      '--loop-id',
      'contract',
      '--no-commit',
    )
    expect(run.code).toBe(0)
    const seen = JSON.parse(readFileSync(join(repo, 'seen.json'), 'utf8'))
    expect(seen.it).toBe('1')
    expect(seen.stage).toBe('IMPLEMENT')
    expect(seen.prompt).toContain('# Goal')
    expect(seen.ctx.failure.check).toBe('verify-1')
    const state = JSON.parse(readFileSync(join(repo, '.loop', 'contract', 'loop-state.json'), 'utf8'))
    expect(state.usage.tokens).toBe(1234)
    expect(state.usage.costUsd).toBeCloseTo(0.12)
    expect(state.session).toBe('s-1')
    await cli(repo, 'next', '--work', work, '--verify', 'test -f never', '--loop-id', 'contract', '--no-commit')
    expect(JSON.parse(readFileSync(join(repo, 'seen.json'), 'utf8')).session).toBe('s-1')
  }, 60_000)
})

describe('a failure that never changes', () => {
  it('switches strategy instead of retrying identically, then is BLOCKED with a dead letter and a handoff', async () => {
    const repo = tempRepo()
    const verify = `node -e "console.error('AssertionError [ERR_ASSERTION]: expected 1 to equal 2'); process.exit(1)"`
    const run = await cli(repo, 'run', '--work', 'true', '--verify', verify, '--loop-id', 'stuck', '--no-commit')
    expect(run.code).toBe(3)
    expect(run.stdout).toMatch(/BLOCKED at iteration \d+/)
    const state = JSON.parse(readFileSync(join(repo, '.loop', 'stuck', 'loop-state.json'), 'utf8'))
    expect(state.status).toBe('blocked')
    const strategies = state.failures.tried.map((t: { strategy: string }) => t.strategy)
    // Never the same strategy twice in a row on the same error.
    for (let i = 1; i < strategies.length; i++) expect(strategies[i]).not.toBe(strategies[i - 1])
    const letters = readdirSync(join(repo, '.loop', 'stuck', 'dead-letters'))
    expect(letters.some((name) => name.startsWith('test-failure_'))).toBe(true)
    const final = readFileSync(join(repo, '.loop', 'stuck', 'final.md'), 'utf8')
    expect(final).toContain('BLOCKED')
    expect(final).toContain('What was tried')
  }, 60_000)
})
