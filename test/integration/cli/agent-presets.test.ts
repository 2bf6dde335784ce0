/**
 * The preset plumbing with a stand-in `claude` on PATH (the real CLI runs in `npm run test:agents`):
 * the prompt on standard input, usage and session read from its JSON, the key handed to the agent
 * alone and masked in its log, a transient API failure retried, a refused key BLOCKED with a handoff.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { runCli } from '../../../src/cli/main.js'
import { loopStateSchema } from '../../../src/domain/state.js'
import { tempRepo } from './helpers.js'

const KEY = 'sk-ant-api03-PLANTEDKEYVALUE0123456789abcdefghij'

/** A stand-in `claude`: answers from a script of results, one per call, and repairs the demo on `fix`. */
const STAND_IN = `#!/usr/bin/env node
const fs = require('node:fs')
const prompt = fs.readFileSync(0, 'utf8')
const dir = process.env.STAND_IN_DIR
const calls = fs.existsSync(dir + '/calls') ? fs.readFileSync(dir + '/calls', 'utf8').split('\\n').filter(Boolean) : []
const answers = fs.readFileSync(dir + '/answers', 'utf8').split('\\n').filter(Boolean)
const answer = answers[Math.min(calls.length, answers.length - 1)]
fs.appendFileSync(dir + '/calls', JSON.stringify({ argv: process.argv.slice(2), promptHasGoal: prompt.includes('# Goal') }) + '\\n')
// An agent that prints its key: the log must not keep it.
console.error('debug: using key ' + process.env.ANTHROPIC_API_KEY)
const result = (fields) => console.log(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, num_turns: 2, session_id: 'sess-A', total_cost_usd: 0.25 * (calls.length + 1), usage: { input_tokens: 1000, output_tokens: 100 }, result: 'done', ...fields }))
if (answer === 'fix') {
  const file = 'src/cart.js'
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('subtotal += line.price\\n', 'subtotal += line.price * line.quantity\\n'))
  result({})
} else if (answer === 'garbage') {
  // A CLI of another version, or a wrapper, that prints prose where the preset expects its JSON.
  console.log('Done! I changed nothing, but here is a poem instead of JSON.')
} else if (answer === '529') {
  result({ is_error: true, result: 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' })
  process.exit(1)
} else if (answer === '401') {
  result({ is_error: true, result: 'Invalid API key · Please run /login' })
  process.exit(1)
} else {
  result({})
}
`

function setUp(answers: string[], options: { install?: boolean } = {}) {
  const repo = tempRepo({
    files: {
      'package.json': '{ "type": "module" }\n',
      'src/cart.js':
        'export function subtotal(lines) {\n  let subtotal = 0\n  for (const line of lines) {\n    subtotal += line.price\n  }\n  return subtotal\n}\n',
      'test/cart.test.js':
        "import assert from 'node:assert/strict'\nimport { test } from 'node:test'\nimport { subtotal } from '../src/cart.js'\n\ntest('subtotal counts the quantity', () => {\n  assert.equal(subtotal([{ price: 3, quantity: 2 }]), 6)\n})\n",
      '.github/loop.yml': [
        'agent: claude',
        'max-turns: 8',
        'budget:',
        '  cost-usd: 5',
        'retry:',
        '  backoff-seconds: 0',
        'checks:',
        '  - name: test',
        '    run: node --test test/',
        '    kind: test',
        // A check that records what it could see: the agent's key must not be there.
        '  - name: env',
        '    run: env > ../check-env.txt',
        '',
      ].join('\n'),
    },
  })
  const stand = mkdtempSync(join(tmpdir(), 'loop-stand-in-'))
  const bin = join(stand, 'bin')
  mkdirSync(bin)
  if (options.install !== false) {
    writeFileSync(join(bin, 'claude'), STAND_IN)
    chmodSync(join(bin, 'claude'), 0o755)
  }
  writeFileSync(join(stand, 'answers'), `${answers.join('\n')}\n`)
  return { repo, stand, bin }
}

async function run(repo: string, stand: string, bin: string) {
  let stdout = ''
  let stderr = ''
  const code = await runCli(['run', '--loop-id', 'agent'], {
    stdout: (text) => {
      stdout += text
    },
    stderr: (text) => {
      stderr += text
    },
    stdin: new PassThrough(),
    isTTY: false,
    cwd: repo,
    env: {
      ...process.env,
      PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
      STAND_IN_DIR: stand,
      ANTHROPIC_API_KEY: KEY,
    },
  })
  const state = loopStateSchema.parse(JSON.parse(readFileSync(join(repo, '.loop', 'agent', 'loop-state.json'), 'utf8')))
  const journey = readFileSync(join(repo, '.loop', 'agent', 'journey-log.jsonl'), 'utf8')
  const calls = readCalls(stand)
  return { code, stdout, stderr, state, journey, calls }
}

function readCalls(stand: string): { argv: string[]; promptHasGoal: boolean }[] {
  try {
    return readFileSync(join(stand, 'calls'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
  } catch {
    return []
  }
}

describe('agent: claude, with a stand-in CLI on PATH', () => {
  it('reads usage and session from its JSON, resumes the session, keeps the key from the checks and the log', async () => {
    const { repo, stand, bin } = setUp(['noop', 'fix'])
    const result = await run(repo, stand, bin)
    expect(result.code, result.stdout).toBe(0)
    expect(result.state.status).toBe('complete')
    expect(result.calls).toHaveLength(2)
    expect(result.calls.every((c) => c.promptHasGoal)).toBe(true)
    expect(result.calls[0]?.argv).not.toContain('--resume')
    expect(result.calls[1]?.argv).toEqual(expect.arrayContaining(['--resume', 'sess-A', '--max-turns', '8']))
    // The remaining budget rides inside the call: 5 USD, then 5 minus the first call's 0.25.
    expect(result.calls[0]?.argv).toEqual(expect.arrayContaining(['--max-budget-usd', '5.0000']))
    expect(result.calls[1]?.argv).toEqual(expect.arrayContaining(['--max-budget-usd', '4.7500']))
    // The session reported 0.25 then 0.50 in total: each dollar counted once.
    expect(result.state.usage.costUsd).toBeCloseTo(0.5)
    expect(result.state.usage.tokens).toBe(2200)
    expect(result.state.session).toBe('sess-A')
    const checkEnv = readFileSync(join(repo, '..', 'check-env.txt'), 'utf8')
    expect(checkEnv).not.toContain(KEY)
    expect(checkEnv).not.toContain('ANTHROPIC_API_KEY')
    const log = readFileSync(join(repo, '.loop', 'agent', 'runs', '1', 'work.log'), 'utf8')
    expect(log).toContain('debug: using key')
    expect(log).not.toContain(KEY)
  })

  it('calls again after an overloaded API, then stops BLOCKED when the key is refused', async () => {
    const { repo, stand, bin } = setUp(['529', '401'])
    const result = await run(repo, stand, bin)
    expect(result.code).toBe(3)
    expect(result.state.status).toBe('blocked')
    expect(result.calls).toHaveLength(2)
    expect(result.journey).toMatch(
      /Claude Code failed \(overloaded: API Error: 529.*calling again in 0 s \(attempt 2 of 3\)/,
    )
    expect(result.state.statusReason).toMatch(/the Claude Code API refused the key \(Invalid API key/)
    expect(result.state.iteration).toBe(1)
    expect(`${result.stdout}${result.stderr}`).not.toContain(KEY)
  })

  it('goes on past an output that is not the expected JSON, its usage unknown and said so', async () => {
    const { repo, stand, bin } = setUp(['garbage', 'fix'])
    const result = await run(repo, stand, bin)
    expect(result.code, result.stdout).toBe(0)
    expect(result.state.status).toBe('complete')
    expect(result.calls).toHaveLength(2)
    expect(result.journey).toMatch(
      /Claude Code's output was not what it prints with its machine-readable flag; this call's usage is unknown/,
    )
    // Only the call that printed its JSON is counted.
    expect(result.state.usage.tokens).toBe(1100)
    const raw = readFileSync(join(repo, '.loop', 'agent', 'runs', '1', 'work.log'), 'utf8')
    expect(raw).toContain('a poem instead of JSON')
  })

  it('says how to install a preset whose CLI is not there', async () => {
    const { repo, stand, bin } = setUp(['fix'], { install: false })
    const result = await run(repo, stand, bin)
    expect(result.code).toBe(3)
    expect(result.state.statusReason).toMatch(
      /agent 'claude': 'claude' \(Claude Code\) is not installed or not on PATH; install it with `npm install -g @anthropic-ai\/claude-code`/,
    )
  })
})
