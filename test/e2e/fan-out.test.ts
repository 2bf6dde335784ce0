// Fan-out end to end: examples/workflows/loop-fan-out.yml calls .github/workflows/loop.yml with
// `fan-out: true`, so each iteration runs as plan → verify (one job per check, from the plan's matrix
// output) → decide, with artifacts between them. Only decide's token can write.
import { execFile } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { jobsNamed, shardedConfig, staircaseConfigWith, startFanOutScenario } from './fan-out-fixtures.js'
import {
  botComments,
  checkOperationsExercised,
  commitSubjects,
  describeJobs,
  expectFaithful,
  MINUTE,
  pullRequests,
} from './fixtures.js'
import { savedState } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

describe('fan-out: plan → verify legs → decide', () => {
  it(
    'reaches COMPLETE through the example workflow; plan and verify hold a read-only token',
    async () => {
      const scenario = await startFanOutScenario()
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'fanned' })
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      // The single job of the reusable workflow is skipped in each of the three runs (the baseline round,
      // two iterations); every fan-out job succeeds.
      const ran = jobs.filter((job) => job.name !== 'loop / loop iteration')
      expect(jobs.length - ran.length, why).toBe(3)
      expect(
        ran.every((job) => job.conclusion === 'success'),
        why,
      ).toBe(true)
      const named = (prefix: string) => jobs.filter((job) => job.name.startsWith(`loop / ${prefix}`))
      // The baseline round first (the loop had no baseline), then two iterations.
      expect(named('plan')).toHaveLength(3)
      expect(named('verify')).toHaveLength(6)
      expect(named('decide')).toHaveLength(3)
      for (const job of named('plan')) expect(job.permissions, job.name).toEqual({ contents: 'read' })
      // Verify reads the run's artifacts too: it takes the plan through the REST API.
      for (const job of named('verify'))
        expect(job.permissions, job.name).toEqual({ contents: 'read', actions: 'read' })
      expect(named('decide')[0]!.permissions).toEqual({
        contents: 'write',
        actions: 'write',
        'pull-requests': 'write',
        issues: 'write',
      })
      expect(named('decide').map((job) => job.outputs.status)).toEqual(['running', 'running', 'complete'])
      // Both legs ran in parallel in the round and in each iteration; step-2 failed on the first
      // candidate, so it took two iterations.
      expect(named('verify').map((job) => job.matrix?.check)).toEqual([
        'step-1',
        'step-2',
        'step-1',
        'step-2',
        'step-1',
        'step-2',
      ])
      expect(named('verify').map((job) => job.name)).toEqual([
        'loop / verify (step-1)',
        'loop / verify (step-2)',
        'loop / verify (step-1)',
        'loop / verify (step-2)',
        'loop / verify (step-1)',
        'loop / verify (step-2)',
      ])
      // The round did no work and ran its checks once at the base, in the legs alone.
      expect(named('plan')[0]?.stdout).toContain('Planned the baseline round before iteration 1: no work')
      expect(named('verify')[0]?.stdout).toMatch(
        /Leg step-1: step-1 at the base [0-9a-f]{12} \(the baseline\): exit 1\./,
      )
      expect(named('decide')[0]?.summary).toContain('the baseline round, before iteration 1 of')
      expect(scenario.workRuns()).toEqual(['work-1', 'work-2'])
      // The agent's first prompt already carries the baseline's failures: both checks failed before any work.
      const firstPrompt = readFileSync(join(scenario.signals, 'prompt-1.md'), 'utf8')
      expect(firstPrompt).toContain('## What failed')
      expect(firstPrompt).toContain('The check `step-1` (test) failed')
      expect(firstPrompt).toMatch(/Other failing checks:\n\n- `step-2`/)
      const state = await savedState(scenario, 'fanned')
      expect(state.baseline?.checks).toEqual({ 'step-1': 'fail', 'step-2': 'fail' })
      expect(state.iteration).toBe(2)
      expect(botComments(sandbox)[0]?.body).toMatch(/COMPLETE · `fanned` · after 2 iterations/)
      // The candidates decide pushed are the plan's commits, one per iteration.
      const subjects = await commitSubjects(sandbox, 'loop/fanned')
      expect(subjects.filter((s) => s.startsWith('loop(fanned)'))).toHaveLength(2)
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )
})

/**
 * Shard `i/n` of a suite whose test `step <i>` each shard reports in its own JUnit file. Shard 3's test
 * passes before the work and after step 2, and fails at step 1: a regression of one test, which decide
 * sees only through the verdicts its legs recorded.
 */
const SHARD_CHECK = `import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
const [shard, shards] = process.argv[2].split('/').map(Number)
if (process.env.LOOP_SHARD !== String(shard) || process.env.LOOP_SHARDS !== String(shards)) process.exit(2)
const have = Number(existsSync('progress.txt') ? readFileSync('progress.txt', 'utf8').trim() || 0 : 0)
// Each run, with the step it found and the folder it ran in, outside every checkout.
appendFileSync(join(process.env.E2E_SIGNAL_DIR, 'shard-runs.log'), shard + ' ' + have + ' ' + basename(process.cwd()) + '\\n')
const passes = shard !== 3 || have !== 1
mkdirSync('reports', { recursive: true })
const failure = passes ? '' : '<failure message="step 1 breaks shard 3"/>'
writeFileSync('reports/junit-' + shard + '.xml', '<testsuites><testsuite name="s"><testcase classname="steps" name="step ' + shard + '">' + failure + '</testcase></testsuite></testsuites>\\n')
if (!passes) {
  console.error('AssertionError [ERR_ASSERTION]: step 1 breaks shard 3')
  process.exit(1)
}
console.log('shard ' + shard + ' passed')
`

const SHARDED_CONFIG = shardedConfig({
  goal: 'Climb the staircase to step 2, the suite split in four shards.',
  maxIterations: 4,
  regression: true,
  shards: 4,
  script: 'tools/shard-check.mjs',
  stepCheck: 2,
})

describe('fan-out: a sharded check', () => {
  it(
    'runs one verify leg per shard; decide merges them into one check, its JUnit verdicts included, and the loop reaches COMPLETE',
    async () => {
      const scenario = await startFanOutScenario({
        '.github/loop.yml': SHARDED_CONFIG,
        'tools/shard-check.mjs': SHARD_CHECK,
        '.gitignore': 'reports/\n',
      })
      const { sandbox, signals } = scenario
      await sandbox.dispatch({ 'loop-id': 'shards' })
      const jobs = await sandbox.waitForIdle(4 * MINUTE)
      const why = describeJobs(jobs)
      const legs = jobsNamed(jobs, 'verify')
      // The baseline round and each iteration: four legs of `test`, one of step-2, every one a success (a
      // failing check is a verdict).
      const iteration = ['test shard 1/4', 'test shard 2/4', 'test shard 3/4', 'test shard 4/4', 'step-2']
      expect(
        legs.map((job) => job.matrix?.leg),
        why,
      ).toEqual([...iteration, ...iteration, ...iteration])
      expect(legs.map((job) => job.name)).toContain('loop / verify (test shard 3/4)')
      expect(legs.every((job) => job.conclusion === 'success')).toBe(true)
      const decides = jobsNamed(jobs, 'decide')
      expect(decides.map((job) => job.outputs.status)).toEqual(['running', 'running', 'complete'])
      // Iteration 1's report links the log of each leg whose check failed: shard 3's job, and step-2's.
      const logOf = (leg: string) => {
        const runId = decides[1]?.runId
        const own = sandbox.api.model.jobs.find((j) => j.runId === runId && j.name === `loop / verify (${leg})`)
        return `[verify (${leg})](https://github.com/acme/demo/actions/runs/${runId}/job/${own?.id})`
      }
      expect(decides[1]?.summary, why).toContain('logs of the failed legs [verify (')
      for (const leg of ['test shard 3/4', 'step-2']) expect(decides[1]?.summary, why).toContain(logOf(leg))
      expect(decides[1]?.summary).not.toContain('[verify (test shard 1/4)]')
      const state = await savedState(scenario, 'shards')
      // One `test` failure, shard 3's under its heading; its test's regression seen from the legs' JUnit verdicts.
      const failures = state.failures.history.filter((f) => f.check === 'test')
      expect(failures.map((f) => [f.iteration, f.pattern])).toEqual([[1, 'test-failure']])
      expect(failures[0]?.error).toMatch(/### test shard 3\/4: fail/)
      expect(state.metrics.regressed?.tests).toEqual(['test:steps.step 3'])
      // The baseline the regression is judged against came from the baseline round's legs: each shard ran
      // once at the base (step 0), in its leg's own checkout, and nowhere else (the plan ran no check), then
      // on each candidate.
      const runs = readFileSync(join(signals, 'shard-runs.log'), 'utf8').trim().split('\n').sort()
      expect(new Set(runs.map((line) => line.split(' ')[2])).size).toBe(1)
      expect(runs.map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual(
        // Shard 3, failing at step 1, once more: its leg's flake check (none in the baseline round).
        [1, 2, 3, 4].flatMap((shard) => [`${shard} 0`, ...(shard === 3 ? ['3 1'] : []), `${shard} 1`, `${shard} 2`]),
      )
      const plans = jobsNamed(jobs, 'plan')
      for (const plan of plans) expect(plan.stdout).not.toMatch(/shard \d passed/)
      for (const leg of legs.slice(0, 4)) {
        expect(leg.stdout).toMatch(
          new RegExp(`Leg ${leg.matrix?.leg}: test at the base [0-9a-f]{12} \\(the baseline\\): exit 0\\.`),
        )
      }
      expect(legs.slice(iteration.length).every((leg) => !leg.stdout.includes('the baseline'))).toBe(true)
      expect(state.baseline?.checks).toEqual({ test: 'pass', 'step-2': 'fail' })
      expect(botComments(sandbox)[0]?.body).toMatch(/COMPLETE · `shards` · after 2 iterations/)
      // The hand-offs cost the jobs' token REST requests (docs/reliability.md, "Fan-out's downloads"): per
      // run (the baseline round, two iterations) 2 a leg (the plan listed by name, its zip) and 3 + legs for
      // decide (the plan's list and zip, the verdicts' list, a zip a leg).
      const downloads = sandbox.api.exchanges.filter(
        (exchange) =>
          exchange.tokenKind === 'installation' &&
          /\/actions\/(runs\/\d+\/artifacts|artifacts\/\d+\/zip)/.test(exchange.path),
      )
      expect(downloads).toHaveLength(3 * (3 * iteration.length + 3))
      expectFaithful(scenario)
    },
    5 * MINUTE,
  )
})

/**
 * An agent that tries to push with every credential it can find (its environment, its ancestors'
 * /proc/<pid>/environ, git's extraheader config), then plants hooks in .git/hooks and in a folder it
 * makes core.hooksPath, which the checkpoint commits. Every hook leaves a marker when it runs.
 */
const PLANT = `import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
const signals = process.env.E2E_SIGNAL_DIR
if (!existsSync(join(signals, 'planted'))) {
  writeFileSync(join(signals, 'planted'), '')
  const values = new Set(Object.values(process.env))
  let pid = process.pid
  for (let depth = 0; depth < 30 && pid > 1; depth++) {
    try {
      for (const entry of readFileSync('/proc/' + pid + '/environ', 'latin1').split('\\0')) values.add(entry.slice(entry.indexOf('=') + 1))
      pid = Number(readFileSync('/proc/' + pid + '/stat', 'utf8').split(') ')[1].split(' ')[1])
    } catch { break }
  }
  try { values.add(execFileSync('git', ['config', '--get-regexp', 'extraheader'], { encoding: 'utf8' })) } catch {}
  const tokens = [...values].filter((v) => v && /^[A-Za-z0-9_.-]{16,200}$/.test(v)).slice(0, 40)
  const origin = execFileSync('git', ['remote', 'get-url', 'origin'], { encoding: 'utf8' }).trim()
  const attempts = []
  const push = (label, args, url) => {
    try {
      execFileSync('git', [...args, 'push', '--quiet', url, 'HEAD:refs/heads/planted'], { stdio: 'pipe', timeout: 20000, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } })
      attempts.push(label + ': pushed')
    } catch { attempts.push(label + ': refused') }
  }
  push('no credential', [], origin)
  for (const token of tokens) {
    const basic = Buffer.from('x-access-token:' + token).toString('base64')
    push('header', ['-c', 'http.extraheader=AUTHORIZATION: basic ' + basic], origin)
    const url = new URL(origin)
    url.username = 'x-access-token'
    url.password = token
    push('url', [], url.toString())
  }
  writeFileSync(join(signals, 'push-attempts'), attempts.join('\\n') + '\\n')
  const hooks = ['pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit', 'post-checkout', 'post-merge', 'pre-push', 'reference-transaction', 'post-rewrite', 'pre-rebase', 'pre-auto-gc', 'post-index-change', 'fsmonitor-watchman']
  mkdirSync('githooks', { recursive: true })
  for (const name of hooks) {
    for (const dir of ['.git/hooks', 'githooks']) {
      writeFileSync(join(dir, name), '#!/bin/sh\\necho ran > "' + signals + '/hook-' + name + '-$$"\\n')
      chmodSync(join(dir, name), 0o755)
    }
  }
  execFileSync('git', ['config', 'core.hooksPath', 'githooks'])
}
`

describe('fan-out: a matrix GitHub would not run', () => {
  it(
    'is refused by plan before the work runs, naming the check count',
    async () => {
      const many = Array.from(
        { length: 257 },
        (_, i) => `  - name: c${i}\n    kind: test\n    run: node tools/check.mjs 1\n`,
      )
      const config = staircaseConfigWith(/checks:\n[\s\S]*$/, `checks:\n${many.join('')}`, { steps: 1 })
      const scenario = await startFanOutScenario({ '.github/loop.yml': config })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'wide' })
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const plan = jobsNamed(jobs, 'plan')[0]
      expect(plan?.conclusion, describeJobs(jobs)).toBe('failure')
      expect(plan?.annotations.map((a) => a.message)).toContainEqual(
        expect.stringMatching(/^The loop config has 257 checks; .* GitHub runs at most 256 jobs from one matrix/),
      )
      expect(scenario.workRuns()).toEqual([])
      expect(
        jobs
          .filter((job) => job.name.startsWith('loop / verify') || job.name === 'loop / decide')
          .map((j) => j.conclusion),
      ).toEqual(['skipped', 'skipped'])
      expectFaithful(scenario)
    },
    2 * MINUTE,
  )
})

describe('fan-out: what the plan job cannot do', () => {
  it(
    'an agent that pushes with every credential it finds and plants hooks: no push lands, no hook runs in any job',
    async () => {
      const config = staircaseConfigWith(
        'run: node tools/work.mjs',
        'run: node tools/plant.mjs && node tools/work.mjs',
        { steps: 1 },
      )
      const scenario = await startFanOutScenario({ 'tools/plant.mjs': PLANT, '.github/loop.yml': config })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'planted' })
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      const attempts = readFileSync(join(scenario.signals, 'push-attempts'), 'utf8').trim().split('\n')
      // It tried without a credential and with each token-shaped value it could see, both ways; every
      // push was refused. (The isolation keeps the controller's /proc out of its sight, and the job's
      // token could not push anyway: plan's is contents: read, as the first scenario shows.)
      expect(attempts[0]).toBe('no credential: refused')
      expect(attempts.filter((a) => a.endsWith(': pushed'))).toEqual([])
      const { stdout } = await promisify(execFile)('git', ['for-each-ref', '--format=%(refname)'], {
        cwd: sandbox.git.bareDir,
      })
      expect(stdout.trim().split('\n')).toEqual(['refs/heads/loop-state', 'refs/heads/loop/planted', 'refs/heads/main'])
      // The planted hooks were committed with the work, and none ran: not in plan, verify or decide.
      const tree = await promisify(execFile)('git', ['ls-tree', '--name-only', 'loop/planted', 'githooks/'], {
        cwd: sandbox.git.bareDir,
      })
      expect(tree.stdout).toContain('githooks/post-checkout')
      const subjects = await commitSubjects(sandbox, 'loop/planted')
      expect(subjects[0], why).toMatch(/^loop\(planted\)/)
      expect(readdirSync(scenario.signals).filter((name) => name.startsWith('hook-'))).toEqual([])
      // The baseline round's decide, then the iteration's.
      expect(
        jobsNamed(jobs, 'decide').map((job) => job.outputs.status),
        why,
      ).toEqual(['running', 'complete'])
      expectFaithful(scenario)
    },
    3 * MINUTE,
  )
})

/**
 * A check that, in its first verify leg of an iteration (not the baseline round's), hangs until its job
 * is killed at the job's time limit.
 */
const HANG_LEG = `import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
const signals = process.env.E2E_SIGNAL_DIR
const planFile = join(process.env.RUNNER_TEMP ?? '/nonexistent', 'loop-fan-out', 'plan', 'plan.json')
const inLeg = existsSync(planFile) && JSON.parse(readFileSync(planFile, 'utf8')).baseline === false
if (inLeg && !existsSync(join(signals, 'hung-leg'))) {
  writeFileSync(join(signals, 'hung-leg'), '')
  await new Promise((resolve) => setTimeout(resolve, 120000))
}
`

describe('fan-out: a leg that leaves no verdict', () => {
  it(
    'a leg killed at its time limit is an error verdict naming the leg (no verdict from step-1), classified infrastructure, never a pass; the checks run again',
    async () => {
      const config = staircaseConfigWith(
        'run: node tools/check.mjs 1',
        'run: node tools/hang-leg.mjs && node tools/check.mjs 1',
        { steps: 1 },
      )
      const scenario = await startFanOutScenario(
        { 'tools/hang-leg.mjs': HANG_LEG, '.github/loop.yml': config },
        { steps: 2 },
        // Every job's time limit (plan, a leg and decide each take a few seconds): the hung leg is killed.
        { jobTimeoutMs: 20_000 },
      )
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'broken' })
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      const legs = jobsNamed(jobs, 'verify')
      // The baseline round's leg, then iteration 1's (killed), then iteration 2's.
      expect(
        legs.map((job) => job.conclusion),
        why,
      ).toEqual(['success', 'timed_out', 'success'])
      const decides = jobsNamed(jobs, 'decide')
      // Iteration 1's decide ran although its leg failed, and judged the check an error: the loop went on.
      expect(decides.map((job) => job.conclusion)).toEqual(['success', 'success', 'success'])
      expect(decides.map((job) => job.outputs.status)).toEqual(['running', 'running', 'complete'])
      const state = await savedState(scenario, 'broken')
      // Its failure, as the state keeps it for the agent and the handoff: the runner's, not the code's.
      expect(state.failures.history.map((f) => [f.iteration, f.check, f.pattern])).toEqual([
        [1, 'step-1', 'infrastructure'],
      ])
      expect(state.failures.history[0]?.error).toMatch(
        /loop-controller: no verdict from step-1: no verdict was uploaded \(the verify job's result: failure\)/,
      )
      // The runner lost the leg, not the code: the next iteration runs the checks again, not the work.
      expect(scenario.workRuns()).toEqual(['work-1'])
      expectFaithful(scenario)
    },
    3 * MINUTE,
  )
})

describe('fan-out: decide judges the candidate and hears people', () => {
  it(
    'raises the verifier gate from the candidate’s own diff, and a writer’s `/loop approve` (decide applies it) carries the loop on',
    async () => {
      const scenario = await startFanOutScenario({}, { steps: 1, editsConfig: true })
      const { sandbox } = scenario
      // The work edits .github/loop.yml in its first iteration: plan commits it; decide's guard sees it.
      await sandbox.dispatch({ 'loop-id': 'gated' })
      let jobs = await sandbox.waitForIdle(3 * MINUTE)
      const decide = () => jobsNamed(jobs, 'decide')
      // The baseline round's decide, then iteration 1's.
      expect(
        decide().map((job) => job.outputs.status),
        describeJobs(jobs),
      ).toEqual(['running', 'waiting'])
      const pull = pullRequests(sandbox)[0]
      expect(pull?.head).toBe('loop/gated')
      const { job } = await sandbox.comment('alice', '/loop approve verifier', pull!.number)
      expect(job).toBeDefined()
      jobs = await sandbox.waitForIdle(3 * MINUTE)
      // The comment's run planned nothing (plan's token cannot read pull requests); its decide applied the
      // approval and settled or re-dispatched the loop, which ended COMPLETE.
      const comment = jobs.filter((j) => j.event === 'issue_comment' && j.name !== 'loop / loop iteration')
      expect(
        comment.map((j) => [j.name, j.conclusion, j.outputs.status ?? '']),
        describeJobs(jobs),
      ).toEqual([
        ['loop / plan', 'success', ''],
        ['loop / decide', 'success', 'running'],
        ['loop / verify', 'skipped', ''],
      ])
      // What decide applied is its outcome, said at info and in its summary: no stale plan, no warning.
      const applied = comment[1]
      expect(applied?.summary).toMatch(
        /Applied `\/loop approve` of @alice \(comment\) to loop gated: it is running in /,
      )
      expect(applied?.annotations.filter((a) => a.level === 'warning')).toEqual([])
      expect(applied?.stdout).not.toMatch(/made no plan/)
      // Its plan step did not run (the timeout's check and checkout did); its decide applied the approval and
      // dispatched the iteration to plan.
      expect(comment[0]?.steps.map((step) => step.outcome)).toEqual([
        'success',
        'success',
        'skipped',
        'skipped',
        'skipped',
        'skipped',
      ])
      expect(decide().map((job) => job.outputs.status)).toEqual(['running', 'waiting', 'running', 'complete'])
      expect(botComments(sandbox)[0]?.body).toMatch(/COMPLETE · `gated`/)
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )
})
