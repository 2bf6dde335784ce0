/**
 * A runner lost between the state's save and the work's push (issue 13, point 8), end to end: the git
 * remote holds the push of the loop's branch (a server-side pre-receive hook) until the job's time is
 * up and the runner kills it (SIGKILL). The state was saved with iteration 1's checkpoint; its commit
 * never reached the branch. The next job (a person runs the loop again) must see that, say so, redo
 * the work and complete, with state, branch and trail in agreement. The action is built from source.
 */
import { chmodSync, existsSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useActionFromSource } from '../security/source-bundle.js'
import { commitSubjects, describeJobs, MINUTE, startScenario, until } from './fixtures.js'

const action = useActionFromSource()

describe('a runner killed after the save and before the push', () => {
  it(
    'leaves a checkpoint the branch never got: the next job forgets it, redoes the work and completes',
    async () => {
      const scenario = await startScenario({ steps: 2, sandbox: { actionDir: action.actionDir, jobTimeoutMs: 20_000 } })
      const { sandbox, signals } = scenario
      const hold = join(signals, 'hold-push')
      const held = join(signals, 'push-held')
      // Holds a push to the loop's branch (never the state branch) while `hold` exists, then refuses it.
      const hook = join(sandbox.git.bareDir, 'hooks', 'pre-receive')
      writeFileSync(
        hook,
        `#!/bin/sh\nwhile read old new ref; do\n  case "$ref" in refs/heads/loop/*)\n    if [ -e '${hold}' ]; then\n      touch '${held}'\n      while [ -e '${hold}' ]; do sleep 0.1; done\n      exit 1\n    fi;;\n  esac\ndone\nexit 0\n`,
      )
      chmodSync(hook, 0o755)
      writeFileSync(hold, '')

      await sandbox.dispatch({ 'loop-id': 'crash' }, { actor: 'alice' })
      await until('the push to be held', () => existsSync(held))
      const first = sandbox.jobs[0]!
      // The runner's time runs out while the push hangs: the engine kills the action with SIGKILL.
      await until('the first job to be killed', () => first.status === 'completed', MINUTE)
      rmSync(hold)
      expect(first.conclusion, describeJobs(sandbox.jobs)).not.toBe('success')
      // The state was saved (on the state branch) but the work never reached the loop's branch.
      expect(sandbox.git.resolveRef('refs/heads/loop/crash')).toBeUndefined()
      expect(sandbox.git.resolveRef('refs/heads/loop-state')).toBeDefined()

      await sandbox.dispatch({ 'loop-id': 'crash' }, { actor: 'alice' })
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      const second = jobs[1]!
      expect(second.stdout, why).toMatch(
        /::warning::iteration 1's commit [0-9a-f]{12} never reached loop\/crash \(its job was lost before the push\): the next iteration redoes its work/,
      )
      expect(jobs.at(-1)?.outputs.status, why).toBe('complete')
      // The branch holds the work of the iterations that reached it, each once.
      const subjects = (await commitSubjects(sandbox, 'loop/crash')).filter((s) => s.startsWith('loop(crash)'))
      expect(new Set(subjects).size, why).toBe(subjects.length)
      expect(subjects.length, why).toBeGreaterThanOrEqual(2)
      expect(sandbox.api.violations).toEqual([])
    },
    5 * MINUTE,
  )
})
