// End to end: the agent edits a workflow file. GitHub refuses a GITHUB_TOKEN push that changes
// `.github/workflows/` (the sandbox's remote does too), so the controller's commit policy leaves the
// file out: the push lands, the loop goes on to COMPLETE, and the comment names the path not committed.
import { describe, expect, it } from 'vitest'
import {
  botComments,
  checkOperationsExercised,
  describeJobs,
  expectFaithful,
  MINUTE,
  projectFiles,
  pullRequests,
  startScenario,
} from './fixtures.js'

checkOperationsExercised(import.meta.url)

/** The staircase's work, which in its first iteration also adds a CI workflow (imports are hoisted in ESM). */
const WORK_THAT_ADDS_A_WORKFLOW = `${projectFiles()['tools/work.mjs']}
import { mkdirSync as makeFolder, writeFileSync as writeText } from 'node:fs'
if (iteration === 1) makeFolder('.github/workflows', { recursive: true })
if (iteration === 1) writeText('.github/workflows/ci.yml', 'name: ci\\non: push\\njobs:\\n  test:\\n    runs-on: ubuntu-latest\\n    steps:\\n      - run: npm test\\n')
`

describe('the action bundle in the sandbox: an agent that edits a workflow file', () => {
  it(
    'the push without the workflow file lands, the comment says the path was not committed, and the loop finishes once the gate the path raised is approved',
    async () => {
      const files = { ...projectFiles({ steps: 1 }), 'tools/work.mjs': WORK_THAT_ADDS_A_WORKFLOW }
      const scenario = await startScenario({ steps: 1, sandbox: { repoFiles: files } })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'ci-edit' })
      let jobs = await sandbox.waitForIdle(2 * MINUTE)
      let why = describeJobs(jobs)
      // `.github/**` is a protected path: the loop waits for the verifier gate (the product's policy).
      expect(
        jobs.map((job) => [job.conclusion, job.outputs.status]),
        why,
      ).toEqual([['success', 'waiting']])
      // The push landed: the loop's branch has the work, not the workflow file.
      const [pull] = pullRequests(sandbox)
      expect(pull?.head, why).toBe('loop/ci-edit')
      expect(await sandbox.git.show('refs/heads/loop/ci-edit', 'progress.txt')).toBe('1\n')
      expect(await sandbox.git.show('refs/heads/loop/ci-edit', '.github/workflows/ci.yml')).toBeUndefined()
      expect(jobs[0]!.stderr).not.toMatch(/refusing to allow a GitHub App/)
      const comment = botComments(sandbox).at(-1)?.body ?? ''
      expect(comment, why).toMatch(
        /\*\*Not committed\*\*[^\n]*\n- `\.github\/workflows\/ci\.yml`: a workflow file added: a push with GITHUB\\_TOKEN may not change \.github\/workflows\//,
      )

      await sandbox.comment('alice', '/loop approve verifier', pull?.number)
      jobs = await sandbox.waitForIdle(2 * MINUTE)
      why = describeJobs(jobs)
      expect(jobs.at(-1)?.outputs.status, why).toBe('complete')
      expect(botComments(sandbox).at(-1)?.body, why).toMatch(/COMPLETE · `ci-edit`/)
      expect(await sandbox.git.show('refs/heads/loop/ci-edit', '.github/workflows/ci.yml')).toBeUndefined()
      expectFaithful(scenario)
    },
    3 * MINUTE,
  )
})
