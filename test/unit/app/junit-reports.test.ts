// A check's JUnit report is read as its result only when its own run wrote it: the report path is removed
// before the check runs, in the single job's matrix and in a fan-out verify leg, so a report already in
// the candidate (committed, stale, or the agent's) is never taken for a run that died before writing one.
import { describe, expect, it } from 'vitest'
import { verifyLeg } from '../../../src/app/fan-out/verify-leg.js'
import { junitResults, rerunCheck, verify } from '../../../src/app/verification.js'
import { legsOf } from '../../../src/domain/fan-out.js'
import { fakeLoop, legPlan } from './iteration-fakes.js'

const STALE = `<testsuites><testsuite name="s"><testcase classname="c" name="old"/></testsuite></testsuites>`
const FRESH = `<testsuites><testsuite name="s"><testcase classname="c" name="new"><failure message="x"/></testcase></testsuite></testsuites>`
const CONFIG = {
  'flake-check': { enabled: false },
  checks: [{ name: 'unit', run: 'unit', kind: 'test' as const, junit: 'reports/unit.xml' }],
}
const REPORT = '/repo/reports/unit.xml'

describe('a JUnit report already in the candidate', () => {
  it.each([
    { title: 'a runner that died before writing its report: no verdicts', writes: false, tests: undefined },
    { title: 'a runner that wrote its report: its verdicts', writes: true, tests: { 'unit:c.new': 'fail' } },
  ])('in a verify leg, $title', async ({ writes, tests }) => {
    const loop = fakeLoop(CONFIG, () => {
      if (writes) loop.files.set(REPORT, FRESH)
      return { exitCode: 137, output: 'runner lost\n' }
    })
    loop.files.set(REPORT, STALE)
    const legs = legsOf(loop.input.config)
    const verdict = await verifyLeg(loop.input, loop.deps, legPlan(legs), legs[0]!)
    expect(verdict.tests).toEqual(tests)
  })

  it('in the single job, is gone before the check runs: no verdicts from a run that wrote none', async () => {
    const loop = fakeLoop(CONFIG, () => {
      expect(loop.files.has(REPORT)).toBe(false)
      return { exitCode: 1, output: 'Segmentation fault\n' }
    })
    loop.files.set(REPORT, STALE)
    await verify(loop.input, loop.deps, '/repo/.loop/unit/logs', {}, 1, false)
    expect(await junitResults(loop.input, loop.deps)).toEqual({})
  })

  it('before a re-run of the check (a flake check, a re-check after a fix), is the first run’s: removed too', async () => {
    const loop = fakeLoop(CONFIG, () => ({ exitCode: 137, output: 'killed\n' }))
    loop.files.set(REPORT, FRESH)
    await rerunCheck(loop.input, loop.deps, loop.input.config.checks[0]!, '/repo/.loop/unit/logs', {}, 'unit.rerun-1')
    expect(await junitResults(loop.input, loop.deps)).toEqual({})
  })

  it('is left alone when the config names a path outside the work tree', async () => {
    const outside = { ...CONFIG, checks: [{ ...CONFIG.checks[0]!, junit: '../elsewhere/unit.xml' }] }
    const loop = fakeLoop(outside, () => ({ exitCode: 0 }))
    loop.files.set('/elsewhere/unit.xml', STALE)
    await verify(loop.input, loop.deps, '/repo/.loop/unit/logs', {}, 1, false)
    expect(loop.files.get('/elsewhere/unit.xml')).toBe(STALE)
  })
})
