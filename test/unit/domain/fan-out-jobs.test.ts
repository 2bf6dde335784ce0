import { describe, expect, it } from 'vitest'
import { legsOf, mergeVerdicts, type VerdictFile } from '../../../src/domain/fan-out.js'
import { type AttemptJobs, findLegJob, type RunJob, trustVerdicts } from '../../../src/domain/fan-out-jobs.js'

const CANDIDATE = 'c'.repeat(40)
const config = { checks: [{ name: 'unit' }, { name: 'lint' }] } as unknown as Parameters<typeof legsOf>[0]
const legs = legsOf(config)

function verdict(leg: string, exitCode: number): VerdictFile {
  return {
    version: 2,
    loopId: 'loop',
    iteration: 1,
    candidate: CANDIDATE,
    leg,
    check: leg,
    run: { exitCode, signal: null, timedOut: false, durationMs: 1000, output: '', totalBytes: 0, truncated: false },
  }
}

function job(name: string, conclusion: string | null, seconds = 30): RunJob {
  return {
    name,
    status: conclusion === null ? 'in_progress' : 'completed',
    conclusion,
    startedAt: '2026-11-26T10:00:00Z',
    completedAt:
      conclusion === null ? null : new Date(Date.parse('2026-11-26T10:00:00Z') + seconds * 1000).toISOString(),
    runAttempt: 1,
  }
}

const listed = (...jobs: RunJob[]): AttemptJobs => ({ kind: 'listed', jobs })
const unavailable: AttemptJobs = { kind: 'unavailable', reason: 'GitHub GET ... failed (403)' }

describe('findLegJob', () => {
  it.each([
    { jobs: [job('verify (unit)', 'success')], found: 'found' },
    { jobs: [job('loop / verify (unit)', 'success')], found: 'found' },
    { jobs: [job('loop / verify (unit) extra', 'success')], found: 'none' },
    { jobs: [job('loop / averify (unit)', 'success')], found: 'none' },
    { jobs: [job('verify (unit-2)', 'success')], found: 'none' },
    { jobs: [job('a / verify (unit)', 'success'), job('b / verify (unit)', 'failure')], found: 'ambiguous' },
  ])('$jobs.0.name → $found', ({ jobs, found }) => {
    expect(findLegJob(jobs, 'unit').kind).toBe(found)
  })
})

describe('trustVerdicts', () => {
  const both = [verdict('unit', 0), verdict('lint', 0)]
  const attempts = new Map(legs.map((leg) => [leg.artifact, 1]))
  it.each([
    {
      name: 'every leg job succeeded: every verdict taken',
      verdicts: both,
      jobs: listed(job('loop / verify (unit)', 'success'), job('loop / verify (lint)', 'success')),
      verifyResult: 'success',
      untrusted: {},
    },
    {
      name: 'a forged pass for a leg whose job failed (its upload met 409): not taken',
      verdicts: both,
      jobs: listed(job('loop / verify (unit)', 'failure'), job('loop / verify (lint)', 'success')),
      verifyResult: 'failure',
      untrusted: {
        'loop-verdict-unit': 'its verdict came from an artifact but its verify job concluded failure: not trusted',
      },
    },
    {
      name: 'a failing verdict from a failed job: taken as it is (it cannot complete the loop)',
      verdicts: [verdict('unit', 1), verdict('lint', 0)],
      jobs: listed(job('loop / verify (unit)', 'failure'), job('loop / verify (lint)', 'success')),
      verifyResult: 'failure',
      untrusted: {},
    },
    {
      name: 'a leg whose job is not listed',
      verdicts: both,
      jobs: listed(job('loop / verify (lint)', 'success')),
      verifyResult: 'success',
      untrusted: {
        'loop-verdict-unit':
          'its verdict came from an artifact, and no job of the run is named verify (unit): not trusted',
      },
    },
    {
      name: 'two jobs named for one leg',
      verdicts: both,
      jobs: listed(
        job('a / verify (unit)', 'success'),
        job('b / verify (unit)', 'success'),
        job('verify (lint)', 'success'),
      ),
      verifyResult: 'success',
      untrusted: {
        'loop-verdict-unit':
          'its verdict came from an artifact, and 2 jobs of the run are named verify (unit): not trusted',
      },
    },
    {
      name: 'jobs not listed, the matrix succeeded: taken',
      verdicts: both,
      jobs: unavailable,
      verifyResult: 'success',
      untrusted: {},
    },
    {
      name: 'jobs not listed, the matrix failed: no pass is taken',
      verdicts: [verdict('unit', 0), verdict('lint', 2)],
      jobs: unavailable,
      verifyResult: 'failure',
      untrusted: {
        'loop-verdict-unit':
          "its verdict came from an artifact, and its verify job could not be confirmed (the jobs could not be listed: GitHub GET ... failed (403); the verify jobs' result: failure): not trusted",
      },
    },
  ])('$name', ({ verdicts, jobs, verifyResult, untrusted }) => {
    const trusted = trustVerdicts({
      legs,
      verdicts,
      verdictAttempts: attempts,
      jobsByAttempt: new Map([[1, jobs]]),
      attempt: 1,
      verifyResult,
    })
    expect(Object.fromEntries(trusted.untrusted)).toEqual(untrusted)
    expect(trusted.verdicts.map((v) => v.leg)).toEqual(
      verdicts.map((v) => v.leg).filter((l) => !(verdictKey(l) in untrusted)),
    )
    expect(trusted.warnings.length > 0).toBe(jobs.kind === 'unavailable')
  })

  it('an untrusted pass becomes its leg`s no-verdict error, on the infrastructure anchor line', () => {
    const trusted = trustVerdicts({
      legs,
      verdicts: [verdict('unit', 0), verdict('lint', 0)],
      verdictAttempts: attempts,
      jobsByAttempt: new Map([[1, listed(job('verify (unit)', 'failure'), job('verify (lint)', 'success'))]]),
      attempt: 1,
      verifyResult: 'failure',
    })
    const merged = mergeVerdicts(
      legs,
      trusted.verdicts,
      { loopId: 'loop', iteration: 1, candidate: CANDIDATE, verifyResult: 'failure' },
      trusted.untrusted,
    )
    expect(merged.runs.get('unit')?.output).toBe(
      'loop-controller: no verdict from unit: its verdict came from an artifact but its verify job concluded failure: not trusted\n',
    )
    expect(merged.runs.get('unit')?.exitCode).toBeNull()
    expect(merged.runs.get('lint')?.exitCode).toBe(0)
  })

  it.each([
    {
      name: 'a completed job: its wall time',
      jobs: listed(job('verify (unit)', 'cancelled', 540)),
      wall: { unit: 540_000 },
    },
    { name: 'a job still running: none', jobs: listed(job('verify (unit)', null)), wall: {} },
    { name: 'no list: none', jobs: unavailable, wall: {} },
  ])('a leg without a verdict: $name', ({ jobs, wall }) => {
    const trusted = trustVerdicts({
      legs,
      verdicts: [],
      verdictAttempts: new Map(),
      jobsByAttempt: new Map([[1, jobs]]),
      attempt: 1,
      verifyResult: 'failure',
    })
    expect(Object.fromEntries(trusted.jobWallMs)).toEqual(wall)
  })
})

function verdictKey(leg: string): string {
  return `loop-verdict-${leg}`
}
