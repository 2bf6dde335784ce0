import { describe, expect, it } from 'vitest'
import { legsOf, mergeVerdicts, type VerdictFile } from '../../../src/domain/fan-out.js'
import {
  type AttemptJobs,
  failedLegJobs,
  findLegJob,
  type JobLog,
  legJobsToRead,
  type RunJob,
  trustVerdicts,
} from '../../../src/domain/fan-out-jobs.js'
import { lastVerdictDigest, verdictDigestLine } from '../../../src/domain/fan-out-verdict-log.js'

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

/** Each job's id: its name's place in this list of names (a leg's job has the same id in every case). */
const ids = new Map<string, number>()
function idOf(name: string): number {
  if (!ids.has(name)) ids.set(name, 100 + ids.size)
  return ids.get(name) as number
}

/** A stand-in sha256 of a verdict file: what the leg's controller and decide both compute. */
function digestOf(v: VerdictFile): string {
  let hash = 0
  for (const char of JSON.stringify(v)) hash = (hash * 31 + char.charCodeAt(0)) >>> 0
  return hash.toString(16).padStart(8, '0').repeat(8)
}

function job(name: string, conclusion: string | null, seconds = 30): RunJob {
  return {
    id: idOf(name),
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
  /** Each listed job's log, as its controller printed it: the digest of its own leg's verdict, after a time. */
  const honestLogs = (verdicts: readonly VerdictFile[], jobs: AttemptJobs): Map<number, JobLog> => {
    const logs = new Map<number, JobLog>()
    if (jobs.kind !== 'listed') return logs
    for (const j of jobs.jobs) {
      const own = verdicts.find((v) => j.name.endsWith(`verify (${v.leg})`))
      const line = own ? `2026-11-26T10:00:29.1234567Z ${verdictDigestLine(own.leg, digestOf(own))}\n` : ''
      logs.set(j.id, { kind: 'read', text: `2026-11-26T10:00:01.0000000Z Run the check\n${line}` })
    }
    return logs
  }
  const digests = (verdicts: readonly VerdictFile[]) =>
    new Map(verdicts.map((v) => [`loop-verdict-${v.leg}`, digestOf(v)]))
  it.each([
    {
      name: 'every leg job succeeded and its log names its verdict: every verdict taken',
      verdicts: both,
      jobs: listed(job('loop / verify (unit)', 'success'), job('loop / verify (lint)', 'success')),
      untrusted: {},
    },
    {
      name: 'a forged pass for a leg whose job failed (its upload met 409): not taken',
      verdicts: both,
      jobs: listed(job('loop / verify (unit)', 'failure'), job('loop / verify (lint)', 'success')),
      untrusted: {
        'loop-verdict-unit': 'its verdict came from an artifact but its verify job concluded failure: not trusted',
      },
    },
    {
      name: 'a failing verdict from a failed job, named in its log: taken as it is (it cannot complete the loop)',
      verdicts: [verdict('unit', 1), verdict('lint', 0)],
      jobs: listed(job('loop / verify (unit)', 'failure'), job('loop / verify (lint)', 'success')),
      untrusted: {},
    },
    {
      name: 'a leg whose job is not listed',
      verdicts: both,
      jobs: listed(job('loop / verify (lint)', 'success')),
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
      untrusted: {
        'loop-verdict-unit':
          'its verdict came from an artifact, and 2 jobs of the run are named verify (unit): not trusted',
      },
    },
    {
      // Behaviour changed: the matrix's aggregate (`success`) no longer vouches for the verdicts, since a
      // check holding the run's token can spend the API's hour and so choose when the list fails.
      name: 'jobs not listed: no verdict is taken, passing or failing',
      verdicts: [verdict('unit', 0), verdict('lint', 2)],
      jobs: unavailable,
      untrusted: {
        'loop-verdict-unit':
          'its verdict came from an artifact, and its verify job could not be confirmed (the jobs could not be listed: GitHub GET ... failed (403)): not trusted',
        'loop-verdict-lint':
          'its verdict came from an artifact, and its verify job could not be confirmed (the jobs could not be listed: GitHub GET ... failed (403)): not trusted',
      },
    },
  ])('$name', ({ verdicts, jobs, untrusted }) => {
    const trusted = trustVerdicts({
      legs,
      verdicts,
      verdictAttempts: attempts,
      verdictDigests: digests(verdicts),
      jobsByAttempt: new Map([[1, jobs]]),
      jobLogs: honestLogs(verdicts, jobs),
      attempt: 1,
    })
    expect(Object.fromEntries(trusted.untrusted)).toEqual(untrusted)
    expect(trusted.verdicts.map((v) => v.leg)).toEqual(
      verdicts.map((v) => v.leg).filter((l) => !(verdictKey(l) in untrusted)),
    )
    expect(trusted.warnings.length > 0).toBe(jobs.kind === 'unavailable')
  })

  describe("a verdict bound to its leg's own job log", () => {
    const jobs = listed(job('loop / verify (unit)', 'success'), job('loop / verify (lint)', 'success'))
    const unitJob = idOf('loop / verify (unit)')
    const lintJob = idOf('loop / verify (lint)')
    const real = verdict('unit', 1)
    const forged = verdict('unit', 0)
    const lint = verdict('lint', 0)
    const judge = (unitLog: JobLog | undefined, lintLog: JobLog = log(lint)) =>
      trustVerdicts({
        legs,
        verdicts: [forged, lint],
        verdictAttempts: attempts,
        verdictDigests: digests([forged, lint]),
        jobsByAttempt: new Map([[1, jobs]]),
        jobLogs: new Map([...(unitLog ? ([[unitJob, unitLog]] as const) : []), [lintJob, lintLog]]),
        attempt: 1,
      }).untrusted.get('loop-verdict-unit')
    function log(...named: VerdictFile[]): JobLog {
      return { kind: 'read', text: named.map((v) => `${verdictDigestLine(v.leg, digestOf(v))}\n`).join('') }
    }

    it('another leg put a passing verdict in place of the leg’s own failing one: its log names the real one, and the forgery is refused', () => {
      expect(judge(log(real))).toMatch(
        /^its verdict came from an artifact, and is not the file its verify job handed on \(its log names sha256 [0-9a-f]{12}, the file's is [0-9a-f]{12}\): not trusted$/,
      )
    })
    it("the other leg's own log names the forgery: it speaks for no leg but its own", () => {
      expect(judge(log(real), log(lint, forged))).toMatch(/is not the file its verify job handed on/)
    })
    it('the last line of the leg’s own log speaks (a check can lie only about its own leg)', () => {
      expect(judge(log(forged, real))).toMatch(/is not the file its verify job handed on/)
      expect(judge(log(real, forged))).toBeUndefined()
    })
    it('a log that names no verdict of the leg, or cannot be read, takes none', () => {
      expect(judge({ kind: 'read', text: 'Run the check\n' })).toBe(
        "its verdict came from an artifact, and its verify job's log names no verdict of it: not trusted",
      )
      expect(judge({ kind: 'unavailable', reason: 'GitHub GET ... failed (404)' })).toBe(
        "its verdict came from an artifact, and its verify job's log could not be read (GitHub GET ... failed (404)): not trusted",
      )
      expect(judge(undefined)).toBe(
        "its verdict came from an artifact, and its verify job's log could not be read (not read): not trusted",
      )
    })
    it("the logs read are the verdicts' legs' jobs, each once; a pass whose job failed needs none", () => {
      const failedUnit = listed(job('loop / verify (unit)', 'failure'), job('loop / verify (lint)', 'success'))
      const input = { legs, verdictAttempts: attempts }
      expect(legJobsToRead({ ...input, verdicts: [forged, lint], jobsByAttempt: new Map([[1, jobs]]) })).toEqual([
        unitJob,
        lintJob,
      ])
      expect(legJobsToRead({ ...input, verdicts: [forged, lint], jobsByAttempt: new Map([[1, failedUnit]]) })).toEqual([
        lintJob,
      ])
    })
  })

  it('an untrusted pass becomes its leg`s no-verdict error, on the infrastructure anchor line', () => {
    const trusted = trustVerdicts({
      legs,
      verdicts: [verdict('unit', 0), verdict('lint', 0)],
      verdictAttempts: attempts,
      verdictDigests: new Map([['loop-verdict-lint', 'f'.repeat(64)]]),
      jobsByAttempt: new Map([[1, listed(job('verify (unit)', 'failure'), job('verify (lint)', 'success'))]]),
      jobLogs: new Map([[idOf('verify (lint)'), { kind: 'read', text: verdictDigestLine('lint', 'f'.repeat(64)) }]]),
      attempt: 1,
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
      verdictDigests: new Map(),
      jobsByAttempt: new Map([[1, jobs]]),
      jobLogs: new Map(),
      attempt: 1,
    })
    expect(Object.fromEntries(trusted.jobWallMs)).toEqual(wall)
  })
})

describe("the plan job's wall time", () => {
  it.each([
    { name: 'listed once, completed: its time', jobs: listed(job('loop / plan', 'success', 420)), wall: 420_000 },
    { name: 'named plan alone', jobs: listed(job('plan', 'success', 60)), wall: 60_000 },
    { name: 'not listed', jobs: listed(job('loop / verify (unit)', 'success')), wall: undefined },
    { name: 'two of that name', jobs: listed(job('a / plan', 'success'), job('b / plan', 'success')), wall: undefined },
    { name: 'still running', jobs: listed(job('loop / plan', null)), wall: undefined },
    { name: 'no list', jobs: unavailable, wall: undefined },
  ])('$name', ({ jobs, wall }) => {
    const trusted = trustVerdicts({
      legs,
      verdicts: [],
      verdictAttempts: new Map(),
      verdictDigests: new Map(),
      jobsByAttempt: new Map([[1, jobs]]),
      jobLogs: new Map(),
      attempt: 1,
    })
    expect(trusted.planJobWallMs).toBe(wall)
  })

  it("names each leg's own job, so the report links the log of a leg whose check failed", () => {
    const verdicts = [verdict('unit', 1), verdict('lint', 0)]
    const jobs = listed(job('loop / verify (unit)', 'failure'), job('loop / verify (lint)', 'success'))
    // Each job's log names its own leg's verdict, as its controller prints it.
    const logs = new Map<number, JobLog>(
      verdicts.map((v) => [
        idOf(`loop / verify (${v.leg})`),
        { kind: 'read', text: `2026-11-26T10:00:29.1234567Z ${verdictDigestLine(v.leg, digestOf(v))}\n` },
      ]),
    )
    const trusted = trustVerdicts({
      legs,
      verdicts,
      verdictAttempts: new Map(legs.map((leg) => [leg.artifact, 1])),
      verdictDigests: new Map(verdicts.map((v) => [verdictKey(v.leg), digestOf(v)])),
      jobsByAttempt: new Map([[1, jobs]]),
      jobLogs: logs,
      attempt: 1,
    })
    expect(trusted.verdicts).toHaveLength(2)
    expect(Object.fromEntries(trusted.legJobIds)).toEqual({
      unit: idOf('loop / verify (unit)'),
      lint: idOf('loop / verify (lint)'),
    })
    expect(failedLegJobs(trusted.verdicts, trusted.legJobIds)).toEqual([
      { leg: 'unit', jobId: idOf('loop / verify (unit)') },
    ])
    // A leg whose job was not listed has no log to link.
    expect(failedLegJobs(trusted.verdicts, new Map())).toEqual([])
  })
})

function verdictKey(leg: string): string {
  return `loop-verdict-${leg}`
}

describe('lastVerdictDigest', () => {
  const a = 'a'.repeat(64)
  const b = 'b'.repeat(64)
  it.each([
    { log: `${verdictDigestLine('unit', a)}\n`, digest: a },
    { log: `\uFEFF2026-11-27T11:38:10.1234567Z ${verdictDigestLine('unit', a)}\r\n`, digest: a },
    { log: `${verdictDigestLine('unit', a)}\n${verdictDigestLine('unit', b)}\n`, digest: b },
    { log: `${verdictDigestLine('unit', a)}\n${verdictDigestLine('unit-2', b)}\n`, digest: a },
    { log: `echo ${verdictDigestLine('unit', a)}\n`, digest: null },
    { log: `${verdictDigestLine('unit', a)} trailing\n`, digest: null },
    { log: `loop-controller: verdict unit sha256:${'A'.repeat(64)}\n`, digest: null },
    { log: '', digest: null },
  ])('$log → $digest', ({ log, digest }) => {
    expect(lastVerdictDigest(log, 'unit')).toBe(digest)
  })

  it("reads a shard's leg, whose name holds spaces, and no other shard's", () => {
    const log = `${verdictDigestLine('test shard 1/4', a)}\n${verdictDigestLine('test shard 2/4', b)}\n`
    expect(lastVerdictDigest(log, 'test shard 1/4')).toBe(a)
    expect(lastVerdictDigest(log, 'test shard 2/4')).toBe(b)
    expect(lastVerdictDigest(log, 'test shard 3/4')).toBeNull()
  })
})
