// End to end through the repository's own reusable workflow: examples/workflows/loop-from-dispatch.yml
// calls .github/workflows/loop.yml (mapped from loop-controller/loop-controller/...@v1 to this
// repository), whose job checks out, skips the setup and install steps it is not asked for, and runs
// the built action; the action re-dispatches the calling workflow until the loop is COMPLETE.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  ACTION_DIR,
  botComments,
  checkOperationsExercised,
  describeJobs,
  MINUTE,
  projectFiles,
  pullRequests,
  startScenario,
} from './fixtures.js'
import { offlineNpmAndClaude } from './offline-agent-cli.js'
import { savedStateIfAny } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

/** A loop config as `loop-controller init` writes it: the claude preset alone, no work command. */
function withClaudePreset(config: string): string {
  const preset = config.replace(
    /^work:\n {2}run: .*\n {2}timeout: .*\n {2}pass-env: .*\n/m,
    'agent: claude\nwork:\n  timeout: 30m\n',
  )
  expect(preset).toMatch(/^agent: claude$/m)
  return preset
}

const example = (name: string) => readFileSync(join(ACTION_DIR, 'examples', 'workflows', name), 'utf8')

/**
 * A scenario whose only workflow is `caller` as loop-from-issue.yml, in simple mode (no loop config), with
 * the offline npm and Claude stand-ins on PATH (their folder, `bin`, keeps npm's log) and the agent's key as a secret.
 */
async function startFromIssue(caller: string, steps: number) {
  const bin = offlineNpmAndClaude()
  const { '.github/loop.yml': _config, ...project } = projectFiles({ steps })
  const scenario = await startScenario({
    steps,
    sandbox: {
      repoFiles: { ...project, '.github/workflows/loop-from-issue.yml': caller },
      workflow: { file: 'loop-from-issue.yml' },
      secrets: { ANTHROPIC_API_KEY: 'sk-ant-offline-stand-in' },
      extraEnv: { PATH: `${bin}:${process.env.PATH}` },
    },
  })
  return { scenario, bin }
}

describe('the reusable workflow, called by the example workflows', () => {
  it(
    'runs loop-from-dispatch.yml → .github/workflows/loop.yml to COMPLETE, one called job per iteration',
    async () => {
      const files = {
        ...projectFiles({ steps: 2 }),
        '.github/workflows/loop-from-dispatch.yml': example('loop-from-dispatch.yml'),
      }
      const scenario = await startScenario({
        steps: 2,
        sandbox: { repoFiles: files, workflow: { file: 'loop-from-dispatch.yml' } },
      })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'called' })
      // The called workflow's fan-out jobs (plan, verify, decide) are skipped: fan-out is off by default.
      const all = await sandbox.waitForIdle(2 * MINUTE)
      const jobs = all.filter((job) => job.conclusion !== 'skipped')
      const fanOut = ['loop / plan', 'loop / decide', 'loop / verify']
      expect(all.filter((job) => job.conclusion === 'skipped').map((job) => job.name)).toEqual([...fanOut, ...fanOut])
      const why = describeJobs(jobs)

      expect(
        jobs.map((job) => [job.name, job.event, job.conclusion]),
        why,
      ).toEqual([
        ['loop / loop iteration', 'workflow_dispatch', 'success'],
        ['loop / loop iteration', 'workflow_dispatch', 'success'],
      ])
      // The called job's steps: the command's check skipped (run is one it takes); the timeout's check and
      // checkout ran; setup-node and the agent install were skipped (not asked for).
      expect(jobs[0]!.steps.map((step) => step.outcome)).toEqual([
        'skipped',
        'success',
        'success',
        'skipped',
        'skipped',
        'success',
      ])
      expect(jobs.map((job) => job.outputs.status)).toEqual(['running', 'complete'])
      // The reusable workflow's job outputs, from the action step's.
      const pull = pullRequests(sandbox)[0]!
      expect(jobs.map((job) => job.jobOutputs)).toEqual([
        { status: 'running', stage: jobs[0]!.outputs.stage, 'pr-number': String(pull.number) },
        { status: 'complete', stage: jobs[1]!.outputs.stage, 'pr-number': String(pull.number) },
      ])
      // The controller re-dispatched the caller (GITHUB_WORKFLOW_REF names it), not the reusable workflow.
      expect(jobs[0]!.env.GITHUB_WORKFLOW_REF).toBe(
        'acme/demo/.github/workflows/loop-from-dispatch.yml@refs/heads/main',
      )
      expect(jobs[1]!.inputs).toMatchObject({ 'loop-id': 'called', iteration: '2' })
      // Each run's title (`run-name`) names the loop and its iteration.
      const titles = [...sandbox.api.model.runs.values()].map((run) => run.displayTitle)
      expect(titles).toEqual(['loop called · by hand', 'loop called · iteration 2'])
      // The called job's token has what the caller grants, and the reusable job's concurrency group.
      expect(jobs[0]!.permissions).toEqual({
        contents: 'write',
        actions: 'write',
        'pull-requests': 'write',
        issues: 'write',
      })
      expect(jobs[0]!.concurrencyGroup).toBe('loop-controller-loop/called')
      expect(scenario.workRuns()).toEqual(['work-1', 'work-2'])
      expect(botComments(sandbox)[0]?.body).toMatch(/COMPLETE · `called` · after 2 iterations/)
      expect(sandbox.api.violations).toEqual([])
      expect(sandbox.engine.problems).toEqual([])
    },
    3 * MINUTE,
  )

  it(
    'a calling job that grants less than loop.yml`s jobs ask for (no issues: write): GitHub refuses the run, no job starts',
    async () => {
      const caller = example('loop-from-dispatch.yml')
      const granting = caller.replace(/^ {6}issues: write\n/m, '')
      expect(granting).not.toBe(caller)
      const files = { ...projectFiles({ steps: 2 }), '.github/workflows/loop-from-dispatch.yml': granting }
      const scenario = await startScenario({
        steps: 2,
        sandbox: { repoFiles: files, workflow: { file: 'loop-from-dispatch.yml' } },
      })
      const { sandbox } = scenario
      const { runId } = await sandbox.dispatch({ 'loop-id': 'less' })
      expect(await sandbox.waitForIdle(MINUTE)).toEqual([])
      expect(sandbox.api.model.runs.get(runId)?.conclusion).toBe('startup_failure')
      expect(sandbox.engine.problems).toEqual([
        `run ${runId}: The workflow is not valid. .github/workflows/loop-from-dispatch.yml: Error calling workflow 'loop-controller/loop-controller/.github/workflows/loop.yml@v1'. The nested job 'iteration' is requesting 'issues: write', but is only allowed 'issues: none'.`,
      ])
      expect(scenario.workRuns()).toEqual([])
      expect(sandbox.api.violations).toEqual([])
    },
    2 * MINUTE,
  )

  it(
    'refuses, through loop-from-dispatch.yml, a loop config`s agent: claude with no `agent` input and no claude on PATH: the job red, naming the input, nothing saved',
    async () => {
      const project = projectFiles({ steps: 2 })
      const config = withClaudePreset(project['.github/loop.yml']!)
      const files = {
        ...project,
        '.github/loop.yml': config,
        '.github/workflows/loop-from-dispatch.yml': example('loop-from-dispatch.yml'),
      }
      const scenario = await startScenario({
        steps: 2,
        sandbox: { repoFiles: files, workflow: { file: 'loop-from-dispatch.yml' } },
      })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'no-cli' })
      const jobs = (await sandbox.waitForIdle(2 * MINUTE)).filter((job) => job.conclusion !== 'skipped')
      const why = describeJobs(jobs)
      expect(
        jobs.map((job) => [job.name, job.conclusion]),
        why,
      ).toEqual([['loop / loop iteration', 'failure']])
      // The install step was skipped (no `agent` input); the action failed with what to set.
      expect(jobs[0]!.steps.map((step) => step.outcome)).toEqual([
        'skipped',
        'success',
        'success',
        'skipped',
        'skipped',
        'failure',
      ])
      const message =
        "agent: claude in .github/loop.yml, but the workflow's 'agent' input is empty and 'claude' is not on PATH: set the reusable workflow's input agent: claude so that it installs the CLI (or install it in a step before the loop)."
      expect(jobs[0]!.annotations.filter((note) => note.level === 'error').map((note) => note.message)).toEqual([
        message,
      ])
      // Nothing of the loop was saved, posted or pushed: the fixed workflow starts the loop afresh.
      expect(await savedStateIfAny(scenario, 'no-cli')).toBeUndefined()
      expect(sandbox.engine.resolveRef('refs/heads/loop/no-cli')).toBeUndefined()
      expect(botComments(sandbox)).toEqual([])
      expect(scenario.workRuns()).toEqual([])
      expect(sandbox.api.violations).toEqual([])
      expect(sandbox.engine.problems).toEqual([])
    },
    3 * MINUTE,
  )

  it(
    'refuses a writer`s `loop` label through loop-from-issue.yml without its `agent` line, the config naming claude: the job red, the issue told, nothing saved',
    async () => {
      const project = projectFiles({ steps: 2 })
      const config = withClaudePreset(project['.github/loop.yml']!)
      // The caller's simple mode dropped (its agent and verify lines): the loop config is the loop.
      const caller = example('loop-from-issue.yml')
        .replace('      agent: claude\n', '')
        .replace(/ {6}verify: \|\n( {8}.*\n)+/, '')
      expect(caller).not.toMatch(/^ {6}(agent|verify):/m)
      const files = { ...project, '.github/loop.yml': config, '.github/workflows/loop-from-issue.yml': caller }
      const scenario = await startScenario({
        steps: 2,
        sandbox: { repoFiles: files, workflow: { file: 'loop-from-issue.yml' } },
      })
      const { sandbox } = scenario
      const issue = await sandbox.openIssue('alice', 'Climb the staircase', 'Two steps, please.')
      await sandbox.label('alice', issue.number, 'loop')
      const jobs = (await sandbox.waitForIdle(2 * MINUTE)).filter((job) => job.conclusion !== 'skipped')
      const why = describeJobs(jobs)
      expect(
        jobs.map((job) => [job.name, job.event, job.conclusion]),
        why,
      ).toEqual([['loop / loop iteration', 'issues', 'failure']])
      const message =
        "agent: claude in .github/loop.yml, but the workflow's 'agent' input is empty and 'claude' is not on PATH: set the reusable workflow's input agent: claude so that it installs the CLI (or install it in a step before the loop)."
      expect(jobs[0]!.annotations.filter((note) => note.level === 'error').map((note) => note.message)).toEqual([
        message,
      ])
      // The issue is told, as other refused starts are; nothing of the loop was saved or pushed.
      const told = botComments(sandbox).filter((comment) => comment.issueNumber === issue.number)
      expect(told.map((comment) => comment.body)).toEqual([
        expect.stringContaining(`did not run the loop \`issue-${issue.number}\`: the agent's CLI is not installed`),
      ])
      expect(told[0]!.body).toContain("set the reusable workflow's input agent: claude")
      expect(await savedStateIfAny(scenario, `issue-${issue.number}`)).toBeUndefined()
      expect(sandbox.engine.resolveRef(`refs/heads/loop/issue-${issue.number}`)).toBeUndefined()
      expect(scenario.workRuns()).toEqual([])
      expect(sandbox.api.violations).toEqual([])
      expect(sandbox.engine.problems).toEqual([])
    },
    3 * MINUTE,
  )

  it(
    'runs loop-from-issue.yml → .github/workflows/loop.yml when a writer labels an issue: the agent install step, then Claude (offline stand-ins) to COMPLETE, on the dashboard; an ordinary issue`s edit skips the job, the dashboard`s runs it',
    async () => {
      // No loop config: the caller's simple mode (agent claude, its verify lines) is the loop.
      const { scenario, bin } = await startFromIssue(example('loop-from-issue.yml'), 2)
      const { sandbox } = scenario
      const issue = await sandbox.openIssue('alice', 'Climb the staircase', 'Two steps, please.')
      await sandbox.label('alice', issue.number, 'loop')
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      const ran = jobs.filter((job) => job.conclusion !== 'skipped')

      expect(
        ran.map((job) => [job.name, job.event, job.conclusion]),
        why,
      ).toEqual([
        ['loop / loop iteration', 'issues', 'success'],
        ['loop / loop iteration', 'workflow_dispatch', 'success'],
      ])
      // The command's check (skipped), the timeout's, checkout, setup-node (the no-op), the agent install, the action.
      expect(ran[0]!.steps.map((step) => step.outcome)).toEqual([
        'skipped',
        'success',
        'success',
        'success',
        'success',
        'success',
      ])
      expect(ran[0]!.stdout).toContain('actions/setup-node@v7 is a no-op here')
      // The install step ran in each job; the verify commands the caller lists ran as the checks.
      const npmLog = readFileSync(join(bin, 'npm.log'), 'utf8')
      expect(npmLog).toContain('npm install --global --no-audit --no-fund @anthropic-ai/claude-code@latest')
      expect(npmLog).toContain('npm test')
      expect(ran.at(-1)!.outputs.status, why).toBe('complete')
      expect(ran.at(-1)!.inputs).toMatchObject({ 'loop-id': `issue-${issue.number}` })
      // Each run's title (`run-name`): the label's event and its issue, then the loop and its iteration.
      const titles = [...sandbox.api.model.runs.values()].map((run) => run.displayTitle)
      expect(titles.slice(0, 2)).toEqual([
        `loop · issues labeled on #${issue.number}`,
        `loop issue-${issue.number} · iteration 2`,
      ])

      // The example keeps the dashboard: one pinned issue, the loop on it COMPLETE.
      const [dashboard, ...more] = [...sandbox.api.model.issues.values()].filter((candidate) =>
        candidate.labels.some((label) => label.name === 'loop/dashboard'),
      )
      expect(more, why).toEqual([])
      expect(dashboard?.pinned, why).toBe(true)
      const body = dashboard?.body ?? ''
      expect(body).toMatch(new RegExp(`^\\| \`issue-${issue.number}\` \\| COMPLETE \\| \\*\\*complete\\*\\* \\|`, 'm'))
      // An edit of an ordinary issue: the caller's `if:` skips the job, so nothing runs and nothing is written.
      const stateTip = sandbox.engine.resolveRef('refs/heads/loop-state')
      const comments = botComments(sandbox).length
      const edit = await sandbox.editIssue('alice', issue.number, 'Two steps, please. (Edited: typo.)')
      await sandbox.waitForIdle(MINUTE)
      const editJobs = sandbox.jobs.filter((job) => job.runId === edit?.runId)
      expect(
        editJobs.map((job) => [job.conclusion, job.steps.length]),
        describeJobs(sandbox.jobs),
      ).toEqual(editJobs.map(() => ['skipped', 0]))
      // An edit of the dashboard runs the job (a tick is such an edit); one that ticks nothing changes nothing.
      const note = await sandbox.editIssue('alice', dashboard!.number, `${body}\nA note of alice's.\n`)
      const after = await sandbox.waitForIdle(MINUTE)
      const called = after.find((job) => job.runId === note?.runId && job.conclusion !== 'skipped')
      expect([note?.conclusion, called?.event, called?.conclusion], describeJobs(after)).toEqual([
        'success',
        'issues',
        'success',
      ])
      expect(called?.stdout).toMatch(/The edit by alice ticks no box of the dashboard: nothing to do/)
      expect(sandbox.engine.resolveRef('refs/heads/loop-state')).toBe(stateTip)
      expect(botComments(sandbox)).toHaveLength(comments)
      expect(sandbox.api.violations).toEqual([])
      expect(sandbox.engine.problems).toEqual([])
    },
    3 * MINUTE,
  )

  it(
    'takes agent: Claude as claude, as GitHub`s case-blind == in the install step`s if: does: the install of claude`s CLI, then the loop runs',
    async () => {
      const caller = example('loop-from-issue.yml').replace('      agent: claude\n', '      agent: Claude\n')
      expect(caller).toMatch(/^ {6}agent: Claude$/m)
      const { scenario, bin } = await startFromIssue(caller, 1)
      const { sandbox } = scenario
      const issue = await sandbox.openIssue('alice', 'Climb the staircase', 'One step, please.')
      await sandbox.label('alice', issue.number, 'loop')
      const ran = (await sandbox.waitForIdle(2 * MINUTE)).filter((job) => job.conclusion !== 'skipped')
      const why = describeJobs(ran)
      expect(ran[0]?.conclusion, why).toBe('success')
      expect(ran[0]!.annotations.filter((note) => note.level === 'error')).toEqual([])
      const npmLog = readFileSync(join(bin, 'npm.log'), 'utf8')
      expect(npmLog).toContain('npm install --global --no-audit --no-fund @anthropic-ai/claude-code@latest')
      expect(ran.at(-1)!.outputs.status, why).toBe('complete')
      expect(sandbox.api.violations).toEqual([])
      expect(sandbox.engine.problems).toEqual([])
    },
    3 * MINUTE,
  )
})
