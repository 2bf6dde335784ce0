import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cli, tempRepo } from './helpers.js'

const GOOD = `work:\n  run: echo hi\nchecks:\n  - name: unit\n    run: "true"\n`

describe('bad loop configs: a message naming the file, the key, the value and what is expected; exit 2', () => {
  const cases: { name: string; config: string; expect: RegExp[] }[] = [
    { name: 'invalid YAML', config: 'work: [unclosed\n', expect: [/loop\.yml:\d+:\d+/, /invalid YAML/] },
    {
      name: 'unknown key',
      config: `${GOOD}colour: blue\n`,
      expect: [/unknown key 'colour'/, /expected one of .*goal/],
    },
    {
      name: 'wrong type',
      config: `${GOOD}max-iterations: lots\n`,
      expect: [/max-iterations/, /expected number/, /"lots"/],
    },
    { name: 'negative cap', config: `${GOOD}max-iterations: -3\n`, expect: [/max-iterations/, />= 1/, /-3/] },
    {
      name: 'cap above 25 without a reason',
      config: `${GOOD}max-iterations: 40\n`,
      expect: [/above 25/, /cap-reason/],
    },
    {
      name: 'empty command',
      config: `work:\n  run: ""\nchecks:\n  - name: a\n    run: "true"\n`,
      expect: [/work\.run/, /must not be empty|non-empty/],
    },
    {
      name: 'needs cycle',
      config: `work:\n  run: x\nchecks:\n  - name: a\n    run: "true"\n    needs: [b]\n  - name: b\n    run: "true"\n    needs: [a]\n`,
      expect: [/cycle/, /a -> b -> a|b -> a -> b/],
    },
    {
      name: 'unknown kind',
      config: `work:\n  run: x\nchecks:\n  - name: a\n    run: "true"\n    kind: vibes\n`,
      expect: [/checks\[0\]\.kind/, /"vibes"/, /"build"/],
    },
    { name: 'empty file', config: '', expect: [/empty/] },
  ]
  it.each(cases)('$name', async ({ config, expect: patterns }) => {
    const repo = tempRepo({ files: { '.github/loop.yml': config } })
    const run = await cli(repo, 'run')
    expect(run.code).toBe(2)
    for (const pattern of patterns) expect(run.stderr).toMatch(pattern)
    expect(existsSync(join(repo, '.loop'))).toBe(false)
  })

  it('names a command that does not exist as command-not-found in the analysis', async () => {
    const repo = tempRepo()
    const run = await cli(
      repo,
      'next',
      '--work',
      'true',
      '--verify',
      'definitely-not-a-command-xyz',
      '--loop-id',
      'nocmd',
    )
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('command-not-found')
  })

  it('refuses a missing config with the fix', async () => {
    const repo = tempRepo()
    const run = await cli(repo, 'run')
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/No loop config at \.github\/loop\.yml/)
    expect(run.stderr).toContain('--work CMD --verify CMD')
  })

  it('runs simple mode over the default config file and says the file was not read', async () => {
    const repo = tempRepo({ files: { '.github/loop.yml': GOOD.replace('"true"', 'echo from-the-file') } })
    const run = await cli(repo, 'next', '--work', 'true', '--verify', 'echo from-the-flag', '--no-commit')
    expect(run.code).toBe(0)
    expect(run.stderr).toContain(
      "warning: Simple mode: --work/--verify set this loop's work and checks, so .github/loop.yml was not read",
    )
    expect(run.stderr).toContain('To run .github/loop.yml instead, drop --work/--verify.')
    const without = await cli(tempRepo(), 'next', '--work', 'true', '--verify', 'true', '--no-commit')
    expect(without.stderr).not.toContain('was not read')
    const named = await cli(repo, 'next', '--config', '.github/loop.yml', '--work', 'true', '--verify', 'true')
    expect(named.code).toBe(2)
    expect(named.stderr).toContain('Use either --config or --work/--verify (simple mode), not both.')
  })

  it('refuses bad flags and unknown commands with exit 2', async () => {
    const repo = tempRepo()
    expect((await cli(repo, 'fly')).code).toBe(2)
    const cap = await cli(repo, 'run', '--work', 'x', '--verify', 'y', '--max-iterations', 'abc')
    expect(cap.code).toBe(2)
    expect(cap.stderr).toContain("--max-iterations must be a whole number from 1 to 1000; got 'abc'")
    const skip = await cli(repo, 'skip', 'docs')
    expect(skip.code).toBe(2)
    expect(skip.stderr).toContain('--reason')
    expect((await cli(repo, 'run', '--bogus')).code).toBe(2)
  })

  it('prints help for every command', async () => {
    const repo = tempRepo()
    for (const command of [
      'init',
      'run',
      'next',
      'status',
      'history',
      'resume',
      'skip',
      'approve',
      'abort',
      'analyze',
    ]) {
      const run = await cli(repo, command, '--help')
      expect(run.code, command).toBe(0)
      expect(run.stdout, command).toContain(`loop-controller ${command}`)
    }
  })
})

describe('bad state: kept aside, never overwritten, and the command says where it is', () => {
  const write = (repo: string, text: string) => {
    mkdirSync(join(repo, '.loop', 'broken'), { recursive: true })
    writeFileSync(join(repo, '.loop', 'broken', 'loop-state.json'), text)
  }
  it('quarantines a corrupt state file', async () => {
    const repo = tempRepo()
    write(repo, '{"schemaVersion": 1, "loopId": "broken", "iteration": "three"')
    const run = await cli(repo, 'next', '--work', 'true', '--verify', 'true', '--loop-id', 'broken')
    expect(run.code).toBe(2)
    const kept = readdirSync(join(repo, '.loop', 'broken')).filter((f) => f.startsWith('loop-state.invalid-'))
    expect(kept).toHaveLength(1)
    expect(run.stderr).toContain(kept[0])
    expect(readFileSync(join(repo, '.loop', 'broken', kept[0] as string), 'utf8')).toContain('"three"')
    // Still refused until a person resets it.
    expect((await cli(repo, 'next', '--work', 'true', '--verify', 'true', '--loop-id', 'broken')).code).toBe(2)
  })

  it('refuses a state from a newer version and names the version to use', async () => {
    const repo = tempRepo()
    write(repo, JSON.stringify({ schemaVersion: 99, loopId: 'broken' }))
    const run = await cli(repo, 'status', '--loop-id', 'broken')
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/schemaVersion 99|version 99/)
    expect(readFileSync(join(repo, '.loop', 'broken', 'loop-state.json'), 'utf8')).toContain('99')
  })
})

describe("people's commands", () => {
  it('init --agent takes a preset in any case and writes it as the loop reads it', async () => {
    const repo = tempRepo()
    const init = await cli(repo, 'init', '--agent', 'Codex')
    expect(init.code).toBe(0)
    expect(readFileSync(join(repo, '.github', 'loop.yml'), 'utf8')).toMatch(/^agent: codex$/m)
  })

  it('init writes a config that run accepts, skip needs a reason, abort ends the loop with exit 6', async () => {
    const repo = tempRepo()
    const init = await cli(repo, 'init', '--work', 'touch x', '--verify', 'test -f never')
    expect(init.code).toBe(0)
    expect(readFileSync(join(repo, '.git', 'info', 'exclude'), 'utf8')).toContain('/.loop/')
    expect((await cli(repo, 'init')).code).toBe(2)
    const next = await cli(repo, 'next', '--loop-id', 'p', '--no-commit')
    expect(next.code).toBe(0)
    const abort = await cli(repo, 'abort', '--loop-id', 'p')
    expect(abort.stderr).toBe('')
    expect(abort.code).toBe(0)
    expect(abort.stdout).toContain('aborted')
    const status = await cli(repo, 'status', '--loop-id', 'p')
    expect(status.code).toBe(6)
  })

  it('approve names an unknown gate clearly', async () => {
    const repo = tempRepo()
    await cli(repo, 'next', '--work', 'true', '--verify', 'false', '--loop-id', 'g', '--no-commit')
    const run = await cli(repo, 'approve', 'nonexistent', '--loop-id', 'g')
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('nonexistent')
  })
})

describe('the verifier-gaming guard', () => {
  it('raises the verifier gate when the work edits the loop config, and says what changed', async () => {
    const repo = tempRepo({ files: { '.github/loop.yml': GOOD.replace('"true"', 'test -f ok') } })
    const config = `work:\n  run: echo "# loosened" >> .github/loop.yml && touch ok\nchecks:\n  - name: unit\n    run: test -f ok\n`
    writeFileSync(join(repo, '.github', 'loop.yml'), config)
    const run = await cli(repo, 'run', '--loop-id', 'guard', '--no-commit')
    expect(run.code).toBe(4)
    expect(run.stdout).toContain('verifier')
    const state = JSON.parse(readFileSync(join(repo, '.loop', 'guard', 'loop-state.json'), 'utf8'))
    expect(state.gates.verifier.status).toBe('pending')
    expect(state.gates.verifier.reason).toContain('.github/loop.yml')
    const approved = await cli(repo, 'approve', 'verifier', '--loop-id', 'guard')
    expect(approved.code).toBe(0)
  })

  it('does not blame the work for changes that were already there before it ran', async () => {
    const repo = tempRepo()
    const init = await cli(repo, 'init', '--work', 'touch x', '--verify', 'test -f x')
    expect(init.code).toBe(0)
    const run = await cli(repo, 'run', '--loop-id', 'pre', '--no-commit')
    expect(run.code).toBe(0)
  })
})

describe('gates triggered by paths', () => {
  it('waits at the gate when the work changes a watched path, and goes on once approved', async () => {
    const config = [
      'work:',
      '  run: mkdir -p src/auth && echo "export const x = 1" > src/auth/login.js && touch ok',
      'checks:',
      '  - name: unit',
      '    run: test -f ok',
      'gates:',
      '  - name: security',
      '    paths: ["src/auth/**"]',
      '',
    ].join('\n')
    const repo = tempRepo({ files: { '.github/loop.yml': config } })
    const run = await cli(repo, 'run', '--loop-id', 'gated', '--no-commit')
    expect(run.code).toBe(4)
    const state = JSON.parse(readFileSync(join(repo, '.loop', 'gated', 'loop-state.json'), 'utf8'))
    expect(state.gates.security.status).toBe('pending')
    expect(state.gates.security.reason).toContain('src/auth/login.js')
    // Status reads the loop's policy from its config to say what comes next.
    const status = await cli(repo, 'status', '--loop-id', 'gated')
    expect(status.stdout).toMatch(/^next {10}.*security/m)
    expect((await cli(repo, 'approve', 'security', '--loop-id', 'gated')).code).toBe(0)
    const after = await cli(repo, 'run', '--loop-id', 'gated', '--no-commit')
    expect(after.code).toBe(0)
    expect(after.stdout).toContain('COMPLETE')
  })
})
