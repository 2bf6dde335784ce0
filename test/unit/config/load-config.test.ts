import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../../src/config/errors.js'
import { type LoopConfigRequest, loadLoopConfig, resolveLoopConfig } from '../../../src/config/load-config.js'
import { CONFIG_CAP_NAMES } from '../../../src/domain/caps.js'
import { PolicyError } from '../../../src/domain/policy.js'

const FILE = 'goal: from the file\nwork:\n  run: file-agent\nchecks:\n  - name: unit\n    run: npm test\n'
const SIMPLE = { work: 'simple-agent', verify: ['npx tsc --noEmit'] }

function request(overrides: Partial<LoopConfigRequest> = {}): LoopConfigRequest {
  return {
    file: { path: '/repo/.github/loop.yml', name: '.github/loop.yml' },
    fileNamed: false,
    simple: null,
    cap: { names: { cap: '--max-iterations', reason: '--cap-reason' } },
    missing: 'No loop config here.',
    ...overrides,
  }
}

describe('resolveLoopConfig: which source wins', () => {
  it.each([
    { name: 'the file, when there is one', over: {}, text: FILE, source: 'file', shadowed: null },
    {
      name: 'simple mode over the default file',
      over: { simple: SIMPLE },
      text: FILE,
      source: 'simple',
      shadowed: '.github/loop.yml',
    },
    {
      name: 'a named file over simple mode',
      over: { simple: SIMPLE, fileNamed: true },
      text: FILE,
      source: 'file',
      shadowed: null,
    },
    {
      name: 'simple mode when the named file is missing',
      over: { simple: SIMPLE, fileNamed: true },
      text: null,
      source: 'simple',
      shadowed: null,
    },
    {
      name: 'simple mode when there is no file',
      over: { simple: SIMPLE },
      text: null,
      source: 'simple',
      shadowed: null,
    },
  ])('$name', ({ over, text, source, shadowed }) => {
    const loaded = resolveLoopConfig(request(over), text)
    if (source === 'file') {
      expect(loaded.config.goal).toBe('from the file')
      expect(loaded.configPath).toBe('/repo/.github/loop.yml')
    } else {
      expect(loaded.config.work.run).toBe('simple-agent')
      expect(loaded.config.checks[0]?.kind).toBe('typecheck')
      expect(loaded.configPath).toBeNull()
    }
    expect(loaded.shadowedFile).toBe(shadowed)
    expect(loaded.policy.maxIterations).toBe(loaded.config['max-iterations'])
  })

  it('says the missing message when there is neither a file nor simple mode', () => {
    expect(() => resolveLoopConfig(request(), null)).toThrow(new ConfigError('No loop config here.'))
  })
})

describe('resolveLoopConfig: a cap set outside the config', () => {
  const flags = { cap: '--max-iterations', reason: '--cap-reason' }
  it.each([
    { name: 'no override keeps the file cap', cap: {}, max: 10, reason: undefined },
    { name: 'the flag cap wins', cap: { maxIterations: 20 }, max: 20, reason: undefined },
    { name: 'a high cap with a reason', cap: { maxIterations: 40, capReason: 'big' }, max: 40, reason: 'big' },
    { name: 'a reason alone is kept', cap: { capReason: 'noted' }, max: 10, reason: 'noted' },
    { name: 'an empty reason is not applied', cap: { capReason: '' }, max: 10, reason: undefined },
  ])('$name', ({ cap, max, reason }) => {
    const { config, policy } = resolveLoopConfig(request({ cap: { ...cap, names: flags } }), FILE)
    expect(config['max-iterations']).toBe(max)
    expect(config['cap-reason']).toBe(reason)
    expect(policy.maxIterations).toBe(max)
  })

  it.each([
    {
      name: 'flags, over a file',
      simple: null,
      names: flags,
      message: /^--max-iterations is 40, above 25: set --cap-reason/,
    },
    {
      name: 'flags, in simple mode',
      simple: SIMPLE,
      names: flags,
      message: /^--max-iterations is 40, above 25: set --cap-reason/,
    },
    {
      name: 'config keys',
      simple: null,
      names: CONFIG_CAP_NAMES,
      message: /^max-iterations is 40, above 25: set cap-reason/,
    },
  ])('refuses a high cap without a reason, named as set ($name)', ({ simple, names, message }) => {
    const run = () => resolveLoopConfig(request({ simple, cap: { maxIterations: 40, names } }), FILE)
    expect(run).toThrow(ConfigError)
    expect(run).toThrow(message)
  })

  it('refuses a high cap in the file without a reason, naming the file', () => {
    expect(() => resolveLoopConfig(request(), `${FILE}max-iterations: 40\n`)).toThrow(
      /Invalid loop config \.github\/loop\.yml:\n {2}- max-iterations is 40, above 25: set cap-reason/,
    )
  })

  it('checks the policy before anything runs', () => {
    const gate = `${FILE}gates:\n  - name: g\n`
    expect(() => resolveLoopConfig(request(), gate)).toThrow(PolicyError)
  })
})

// Behaviour changed: simple mode reads the default file too, only to say it was passed over (it was
// skipped unread, so a loop ran without the checks the file names and nobody was told).
describe('loadLoopConfig reads the file, and names the default file simple mode passed over', () => {
  it.each([
    { name: 'default file, no simple mode', over: {}, shadowed: null },
    { name: 'default file, simple mode', over: { simple: SIMPLE }, shadowed: '.github/loop.yml' },
    { name: 'named file, simple mode', over: { simple: SIMPLE, fileNamed: true }, shadowed: null },
  ])('$name', async ({ over, shadowed }) => {
    const paths: string[] = []
    const loaded = await loadLoopConfig(request(over), async (path) => {
      paths.push(path)
      return FILE
    })
    expect(paths).toEqual(['/repo/.github/loop.yml'])
    expect(loaded.shadowedFile).toBe(shadowed)
  })
})

describe('the agent: a preset or the work command', () => {
  const CHECKS = 'checks:\n  - name: unit\n    run: npm test\n'
  it.each([
    {
      name: 'a preset needs no work command',
      text: `agent: claude\nmax-turns: 20\n${CHECKS}`,
      agent: 'claude',
      run: undefined,
    },
    {
      name: 'a preset in any case (as the reusable workflow installs its CLI)',
      text: `agent: Claude\nmax-turns: 20\n${CHECKS}`,
      agent: 'claude',
      run: undefined,
    },
    { name: 'the work command alone is agent: command', text: FILE, agent: 'command', run: 'file-agent' },
    {
      name: 'an input chooses a preset over the file',
      text: FILE,
      over: { agent: { name: 'codex' as const, setting: "input 'agent'" } },
      agent: 'codex',
      run: undefined,
    },
    {
      name: 'simple mode with a preset',
      text: null,
      over: { simple: { agent: 'claude' as const, verify: ['npm test'] } },
      agent: 'claude',
      run: undefined,
    },
  ])('$name', ({ text, over, agent, run }) => {
    const { config } = resolveLoopConfig(request(over ?? {}), text)
    expect(config.agent).toBe(agent)
    expect(config.work.run).toBe(run)
  })

  it.each([
    {
      text: `${CHECKS}`,
      message: /work\.run: expected the work command .*agent: claude \| codex \| gemini \| aider; got nothing/,
    },
    {
      text: `agent: claude\nwork:\n  run: claude -p hi\n${CHECKS}`,
      message: /the agent preset 'claude' builds the work command itself; remove work\.run, or set agent: command/,
    },
    {
      text: `agent: codex\nmax-turns: 5\n${CHECKS}`,
      message: /max-turns: the 'codex' CLI has no turn limit of its own/,
    },
    { text: `agent: copilot\n${CHECKS}`, message: /agent: .*"claude".*got "copilot"/ },
    {
      text: `agent: claude\nwork:\n  secrets: [ 'NOT A NAME' ]\n${CHECKS}`,
      message: /line 3, work\.secrets\[0\]: an environment variable name; got "NOT A NAME"/,
    },
  ])('refuses $message', ({ text, message }) => {
    expect(() => resolveLoopConfig(request(), text)).toThrow(message)
  })
})
