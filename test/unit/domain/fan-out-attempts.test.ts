import { describe, expect, it } from 'vitest'
import { mergeVerdicts, noVerdictLine, verdictArtifact } from '../../../src/domain/fan-out.js'
import {
  failedLegReason,
  latestVerdictArtifacts,
  legErrorFileSchema,
  parseVerdictArtifactName,
  verdictArtifactName,
} from '../../../src/domain/fan-out-attempts.js'

describe('parseVerdictArtifactName', () => {
  it.each([
    { name: 'loop-verdict-unit.attempt-1', read: { artifact: 'loop-verdict-unit', attempt: 1, failed: false } },
    { name: 'loop-verdict-unit.attempt-12.failed', read: { artifact: 'loop-verdict-unit', attempt: 12, failed: true } },
    // A leg's own name may hold what looks like an attempt: the last one is the workflow's.
    {
      name: 'loop-verdict-x.attempt-3.attempt-2',
      read: { artifact: 'loop-verdict-x.attempt-3', attempt: 2, failed: false },
    },
    {
      name: 'loop-verdict-test_shard_1_4.attempt-2',
      read: { artifact: 'loop-verdict-test_shard_1_4', attempt: 2, failed: false },
    },
    { name: 'loop-verdict-unit', read: null },
    { name: 'loop-verdict-unit.attempt-0', read: null },
    { name: 'loop-verdict-unit.attempt-52', read: null },
    { name: 'loop-verdict-unit.attempt-1.passed', read: null },
    { name: 'loop-plan.attempt-1', read: null },
  ])('$name', ({ name, read }) => {
    expect(parseVerdictArtifactName(name)).toEqual(read === null ? null : { name, ...read })
  })

  it('reads back the name the workflow gives', () => {
    for (const failed of [false, true]) {
      const name = verdictArtifactName('loop-verdict-lint', 4, failed)
      expect(parseVerdictArtifactName(name)).toEqual({ name, artifact: 'loop-verdict-lint', attempt: 4, failed })
    }
  })
})

describe('latestVerdictArtifacts', () => {
  it.each([
    {
      title: 'a re-run of a failed leg: its new attempt speaks for it, the leg that passed before keeps its own',
      names: ['loop-verdict-a.attempt-1', 'loop-verdict-b.attempt-1.failed', 'loop-verdict-b.attempt-2'],
      latest: ['loop-verdict-a.attempt-1', 'loop-verdict-b.attempt-2'],
      foreign: [],
    },
    {
      title: 're-run all jobs: every leg of the new attempt',
      names: [
        'loop-verdict-a.attempt-2',
        'loop-verdict-a.attempt-1',
        'loop-verdict-b.attempt-1',
        'loop-verdict-b.attempt-2',
      ],
      latest: ['loop-verdict-a.attempt-2', 'loop-verdict-b.attempt-2'],
      foreign: [],
    },
    {
      title: 'a failed leg that fails again stays failed; attempt 10 comes after attempt 9',
      names: ['loop-verdict-a.attempt-9', 'loop-verdict-a.attempt-10.failed'],
      latest: ['loop-verdict-a.attempt-10.failed'],
      foreign: [],
    },
    {
      title: "a passed and a failed name of one attempt (not the workflow's doing): the failed one counts",
      names: ['loop-verdict-a.attempt-1', 'loop-verdict-a.attempt-1.failed'],
      latest: ['loop-verdict-a.attempt-1.failed'],
      foreign: [],
    },
    {
      title: "a name without its attempt is none of the workflow's",
      names: ['loop-verdict-a', 'loop-verdict-a.attempt-1'],
      latest: ['loop-verdict-a.attempt-1'],
      foreign: ['loop-verdict-a'],
    },
    {
      title: "an attempt after decide's own is no upload of the workflow's: foreign, never the latest",
      names: ['loop-verdict-a.attempt-1.failed', 'loop-verdict-a.attempt-2'],
      current: 1,
      latest: ['loop-verdict-a.attempt-1.failed'],
      foreign: ['loop-verdict-a.attempt-2'],
    },
  ])(
    '$title',
    ({
      names,
      latest,
      foreign,
      current,
    }: {
      names: string[]
      latest: string[]
      foreign: string[]
      current?: number
    }) => {
      const got = latestVerdictArtifacts(names, current)
      expect(got.latest.map((a) => a.name)).toEqual(latest)
      expect(got.foreign).toEqual(foreign)
    },
  )
})

describe('a leg whose controller failed', () => {
  const error = legErrorFileSchema.parse({
    version: 1,
    loopId: 'l',
    leg: 'unit',
    error: "The plan built on aaaa; the loop's branch here is at bbbb.",
  })

  it.each([
    { title: 'its error is named', given: error, reason: /^its verify job failed: The plan built on aaaa/ },
    { title: 'without an error file, it says so', given: null, reason: /handed on no error/ },
  ])('$title', ({ given, reason }) => {
    expect(failedLegReason(given)).toMatch(reason)
  })

  it('is an error in decide, whatever else its artifact held, and its reason is in the check output', () => {
    const legs = [{ leg: 'unit', check: 'unit', artifact: verdictArtifact('unit') }]
    const reason = failedLegReason(error)
    const { runs } = mergeVerdicts(
      legs,
      [],
      { loopId: 'l', iteration: 1, candidate: 'c'.repeat(40), verifyResult: 'failure' },
      new Map([[verdictArtifact('unit'), reason]]),
    )
    const run = runs.get('unit')
    expect(run?.exitCode).toBeNull()
    expect(run?.spawnError).toBe(noVerdictLine('unit', reason))
  })

  it('an error file is strict: a verdict in its place is refused', () => {
    const verdictLike = { version: 1, loopId: 'l', leg: 'unit', error: '', run: { exitCode: 0 } }
    expect(legErrorFileSchema.safeParse(verdictLike).success).toBe(false)
  })
})
