// End to end through the two example workflows no other test runs, verbatim: examples/workflows/
// loop-step.yml (the action as a step of the user's own job: Codex and `go` verify lines, here offline
// stand-ins) drives a loop to COMPLETE, and examples/workflows/loop-sweeper.yml, its own workflow file
// beside it, re-dispatches a loop whose re-dispatch failed to the loop's workflow, not to itself.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
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
  type Scenario,
  startScenario,
} from './fixtures.js'
import { savedState } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

const example = (name: string) => readFileSync(join(ACTION_DIR, 'examples', 'workflows', name), 'utf8')

/**
 * npm, Codex and Go as the runner would have them, offline: `npm install --global @openai/codex@…`
 * puts a `codex` on PATH that climbs one step (tools/work.mjs) and answers as `codex exec --json`
 * does; `go build ./...` passes and `go test ./...` runs the staircase's check of step `steps`.
 */
function fakeNpmCodexAndGo(steps: number): string {
  const bin = mkdtempSync(join(tmpdir(), 'loop-e2e-bin-'))
  onTestFinished(() => rmSync(bin, { recursive: true, force: true }))
  const codex = `#!/usr/bin/env bash
cat > /dev/null
node tools/work.mjs >&2
echo '{"type":"thread.started","thread_id":"thread-1"}'
echo '{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":5}}'
`
  const npm = `#!/usr/bin/env bash
echo "npm $*" >> "${bin}/npm.log"
[[ "$1" == install && "$*" == *@openai/codex@* ]] && cp "${bin}/codex.source" "${bin}/codex" && chmod +x "${bin}/codex"
true
`
  const go = `#!/usr/bin/env bash
echo "go $*" >> "${bin}/go.log"
case "$1" in
  build) true ;;
  test) node tools/check.mjs ${steps} ;;
  *) echo "go: unknown command $1" >&2; exit 2 ;;
esac
`
  writeFileSync(join(bin, 'codex.source'), codex)
  for (const [name, text] of [
    ['npm', npm],
    ['go', go],
  ] as const) {
    writeFileSync(join(bin, name), text)
    chmodSync(join(bin, name), 0o755)
  }
  return bin
}

/**
 * The staircase and its workflows; without its loop config (loop-step.yml is simple mode: its agent and
 * verify lines) unless `keepConfig`, the .github/loop.yml a user's `init` wrote before.
 */
function repository(workflows: Record<string, string>, keepConfig = false): Record<string, string> {
  const { '.github/loop.yml': config, '.github/workflows/loop.yml': _template, ...project } = projectFiles({ steps: 2 })
  const files = Object.entries(workflows).map(([name, text]) => [`.github/workflows/${name}`, text])
  return { ...project, ...(keepConfig && config ? { '.github/loop.yml': config } : {}), ...Object.fromEntries(files) }
}

async function start(
  workflows: Record<string, string>,
  more: string[] = [],
  keepConfig = false,
): Promise<Scenario & { bin: string }> {
  const bin = fakeNpmCodexAndGo(2)
  const scenario = await startScenario({
    steps: 2,
    sandbox: {
      repoFiles: repository(workflows, keepConfig),
      workflow: { file: 'loop-step.yml' },
      workflows: more,
      secrets: { OPENAI_API_KEY: 'sk-offline-stand-in' },
      extraEnv: { PATH: `${bin}:${process.env.PATH}` },
    },
  })
  return { ...scenario, bin }
}

describe('the example workflows loop-step.yml and loop-sweeper.yml, verbatim', () => {
  it(
    'loop-step.yml: checkout, the agent install, the action with Codex and go verify lines, to COMPLETE',
    async () => {
      const scenario = await start({ 'loop-step.yml': example('loop-step.yml') })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'stepped' })
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      expect(
        jobs.map((job) => [job.name, job.inputs.iteration ?? '', job.conclusion, job.outputs.status]),
        why,
      ).toEqual([
        ['loop iteration', '', 'success', 'running'],
        ['loop iteration', '2', 'success', 'complete'],
      ])
      // Checkout, the agent install, the action: each ran.
      expect(jobs[0]!.steps.map((step) => step.outcome)).toEqual(['success', 'success', 'success'])
      expect(jobs[0]!.permissions).toEqual({
        contents: 'write',
        actions: 'write',
        'pull-requests': 'write',
        issues: 'write',
      })
      expect(jobs[0]!.concurrencyGroup).toBe('loop-controller-loop/stepped')
      // The controller re-dispatched loop-step.yml itself.
      const paths = [...sandbox.api.model.runs.values()].map((run) => run.workflowPath)
      expect(paths).toEqual(['.github/workflows/loop-step.yml', '.github/workflows/loop-step.yml'])
      // Each run's title (`run-name`) names the loop and its iteration.
      const titles = [...sandbox.api.model.runs.values()].map((run) => run.displayTitle)
      expect(titles).toEqual(['loop stepped · by hand', 'loop stepped · iteration 2'])
      // The install step and the verify lines ran as the file says, in each job.
      const log = (name: string) => readFileSync(join(scenario.bin, name), 'utf8').trim().split('\n')
      expect(log('npm.log')).toEqual(Array(2).fill('npm install --global --no-audit --no-fund @openai/codex@0.169.0'))
      expect(log('go.log')).toEqual(expect.arrayContaining(['go build ./...', 'go test ./...']))
      expect(scenario.workRuns(), why).toEqual(['work-1', 'work-2'])
      expect(botComments(sandbox).at(-1)?.body).toMatch(/COMPLETE · `stepped` · after 2 iterations/)
      expectFaithful(scenario)
    },
    3 * MINUTE,
  )

  it(
    'loop-step.yml beside a .github/loop.yml: its verify lines are the checks that run, and the summary says the file was not read',
    async () => {
      const scenario = await start({ 'loop-step.yml': example('loop-step.yml') }, [], true)
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'shadowed' })
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      expect(
        jobs.map((job) => [job.conclusion, job.outputs.status]),
        why,
      ).toEqual([
        ['success', 'running'],
        ['success', 'complete'],
      ])
      // The verify lines ran (go build, go test), not the file's checks (step-1, step-2).
      const goLog = readFileSync(join(scenario.bin, 'go.log'), 'utf8').trim().split('\n')
      expect(goLog).toEqual(expect.arrayContaining(['go build ./...', 'go test ./...']))
      const notice =
        "Simple mode: the 'verify' input set this loop's work and checks, so .github/loop.yml was not read (its checks do not run). To run .github/loop.yml instead, drop the 'verify' input."
      for (const job of jobs) {
        expect(job.summary, why).toContain(notice)
        expect(job.summary).not.toMatch(/step-[12]/)
        expect(job.stdout).toContain(`::warning::${notice}`)
      }
      expectFaithful(scenario)
    },
    3 * MINUTE,
  )

  it(
    'loop-sweeper.yml beside loop-step.yml: a scheduled sweep re-dispatches the stranded loop to loop-step.yml, which finishes it',
    async () => {
      const scenario = await start(
        { 'loop-step.yml': example('loop-step.yml'), 'loop-sweeper.yml': example('loop-sweeper.yml') },
        ['loop-sweeper.yml'],
      )
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'swept' })
      // The first attempt and the client's three retries all fail: iteration 2 is never started.
      sandbox.api.inject({ match: 'POST /repos/*/*/actions/workflows/*/dispatches', status: 502, times: 4 })
      let jobs = await sandbox.waitForIdle(2 * MINUTE)
      let why = describeJobs(jobs)
      expect(
        jobs.map((job) => [job.conclusion, job.outputs.status]),
        why,
      ).toEqual([['failure', 'running']])
      expect((await savedState(scenario, 'swept')).dispatch).toMatchObject({ iteration: 2, workflow: 'loop-step.yml' })

      // GitHub's cron starts the sweeper's own file (the schedule payload names it).
      const owner = sandbox.api.model.user('acme')
      const schedule = { schedule: '*/15 * * * *', workflow: '.github/workflows/loop-sweeper.yml' }
      expect(sandbox.engine.trigger('schedule', schedule, owner)).toBeDefined()
      jobs = await sandbox.waitForIdle(2 * MINUTE)
      why = describeJobs(jobs)
      const runs = [...sandbox.api.model.runs.values()]
      expect(
        runs.map((run) => [run.workflowPath, run.event, run.conclusion]),
        why,
      ).toEqual([
        ['.github/workflows/loop-step.yml', 'workflow_dispatch', 'failure'],
        ['.github/workflows/loop-sweeper.yml', 'schedule', 'success'],
        ['.github/workflows/loop-step.yml', 'workflow_dispatch', 'success'],
      ])
      const [sweeper, resumed] = [jobs[1]!, jobs[2]!]
      expect([sweeper.name, sweeper.outputs.status], why).toEqual(['re-dispatch stranded loops', 'swept'])
      expect(sweeper.summary, why).toMatch(/`swept` \| dispatched/)
      // The sweeper's job has what its file grants (no pull-requests), and ran no project code.
      expect(sweeper.permissions).toEqual({ contents: 'write', actions: 'write', issues: 'write' })
      expect(sweeper.concurrencyGroup).toBe('loop-controller-sweeper')
      expect([resumed.inputs.iteration, resumed.outputs.status], why).toEqual(['2', 'complete'])
      // The sweeper ran no agent: each iteration's work ran once, in loop-step.yml's jobs.
      expect(scenario.workRuns()).toEqual(['work-1', 'work-2'])
      expect(botComments(sandbox).at(-1)?.body).toMatch(/COMPLETE · `swept` · after 2 iterations/)
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )
})
