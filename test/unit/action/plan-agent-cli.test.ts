// The plan's refusal of a preset agent named in the loop config alone, whose CLI the workflow would
// not install: PATHs built in a temporary folder, with and without an executable `claude`.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { refuseAgentWithoutCli } from '../../../src/action/plan-agent-cli.js'
import { ConfigError } from '../../../src/config/errors.js'

const root = mkdtempSync(join(tmpdir(), 'loop-plan-agent-cli-'))
const empty = join(root, 'empty')
const withClaude = join(root, 'with-claude')
const notExecutable = join(root, 'not-executable')
for (const dir of [empty, withClaude, notExecutable]) mkdirSync(dir)
writeFileSync(join(withClaude, 'claude'), '#!/bin/sh\n')
chmodSync(join(withClaude, 'claude'), 0o755)
writeFileSync(join(notExecutable, 'claude'), '#!/bin/sh\n')
chmodSync(join(notExecutable, 'claude'), 0o644)
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('refuseAgentWithoutCli', () => {
  it.each([
    { title: 'the input names the preset (the workflow installs it)', config: 'claude', input: 'claude', path: empty },
    {
      title: 'the CLI is on PATH already',
      config: 'claude',
      input: undefined,
      path: `${empty}${delimiter}${withClaude}`,
    },
    { title: 'no preset (agent: command)', config: 'command', input: undefined, path: empty },
    { title: 'a preset the workflow never installs (aider)', config: 'aider', input: undefined, path: empty },
  ] as const)('lets the plan go on when $title', ({ config, input, path }) => {
    expect(() => refuseAgentWithoutCli(config, input, '.github/loop.yml', path)).not.toThrow()
  })

  it.each([
    { title: 'nothing on PATH', config: 'claude', program: 'claude', path: empty },
    { title: 'a claude that cannot be run', config: 'claude', program: 'claude', path: notExecutable },
    { title: 'codex, where PATH has only claude', config: 'codex', program: 'codex', path: withClaude },
    { title: 'gemini, with an empty PATH', config: 'gemini', program: 'gemini', path: '' },
  ] as const)(
    'refuses a preset in the config alone with $title, naming the input to set',
    ({ config, program, path }) => {
      const refuse = () => refuseAgentWithoutCli(config, undefined, '.github/loop.yml', path)
      expect(refuse).toThrow(ConfigError)
      expect(refuse).toThrow(
        `agent: ${config} in .github/loop.yml, but the workflow's 'agent' input is empty and '${program}' is not on PATH: set the reusable workflow's input agent: ${config} so that it installs the CLI (or install it in a step before the loop).`,
      )
    },
  )
})
