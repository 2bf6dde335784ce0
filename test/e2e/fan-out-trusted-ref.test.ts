// Fan-out reads what the loop config names from the ref the workflow checked out, as it reads the config:
// a patterns file a writer adds on main while the loop runs is read from main by every later plan, leg
// and decide, never looked for on the loop's branch (which the agent writes, and which does not have it).
import { execFileSync } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { jobsNamed, staircaseConfigWith, startFanOutScenario } from './fan-out-fixtures.js'
import { checkOperationsExercised, describeJobs, expectFaithful, MINUTE, waitForWork } from './fixtures.js'

checkOperationsExercised(import.meta.url)

const PATTERNS = '- id: my-pattern\n  signals: ["never seen in this project"]\n  strategy: escalate\n'

describe('fan-out: the patterns file is the trusted ref’s', () => {
  it(
    'a patterns file a writer adds on main mid-loop (the config names it) is read from main: every later job reads it and the loop completes',
    async () => {
      const project = { steps: 3 }
      const s = await startFanOutScenario({}, project)
      const { sandbox } = s
      writeFileSync(join(s.signals, 'hold'), '')
      await sandbox.dispatch({ 'loop-id': 'patterns' })
      await waitForWork(s, 1, 2 * MINUTE)
      // While iteration 1's work runs, a writer names a patterns file in the config and adds it, on main.
      const config = staircaseConfigWith(/\nchecks:\n/, '\npatterns: .github/loop-patterns.yml\nchecks:\n', project)
      await sandbox.git.commit(
        'main',
        { '.github/loop.yml': config, '.github/loop-patterns.yml': PATTERNS },
        'a writer adds a patterns file',
      )
      rmSync(join(s.signals, 'hold'))
      writeFileSync(join(s.signals, 'go-1'), '')
      const jobs = await sandbox.waitForIdle(4 * MINUTE)
      const why = describeJobs(jobs)
      // The loop's branch never had the file: each job read it from its own checkout of main.
      const branchFiles = execFileSync('git', ['ls-tree', '-r', '--name-only', 'loop/patterns'], {
        cwd: sandbox.git.bareDir,
        encoding: 'utf8',
      })
      expect(branchFiles.split('\n')).not.toContain('.github/loop-patterns.yml')
      expect(
        [...jobsNamed(jobs, 'plan'), ...jobsNamed(jobs, 'verify'), ...jobsNamed(jobs, 'decide')]
          .filter((job) => job.conclusion !== 'success')
          .map((job) => job.name),
        why,
      ).toEqual([])
      // Iterations 2 and 3 ran on the config that names the file, and the loop completed.
      expect(s.workRuns(), why).toEqual(['work-1', 'work-2', 'work-3'])
      expect(jobsNamed(jobs, 'decide').at(-1)?.outputs.status, why).toBe('complete')
      expectFaithful(s)
    },
    5 * MINUTE,
  )
})
