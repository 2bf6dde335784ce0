// `depends-on` a user can rely on: every way people write the issue body's line is read or refused
// with a message naming the line (never ignored), a wait that would close a cycle is found and named,
// and a queued loop whose wait cannot end by itself says what it needs.
import { describe, expect, it } from 'vitest'
import {
  type DependsOnLine,
  dependencyCycle,
  issueOfLoop,
  nameOfCycle,
  nameOfLoop,
  parseDependsOnLine,
  type Waiting,
} from '../../../src/domain/depends-on.js'
import { cycleRefusal, dependsOnRefusal } from '../../../src/domain/report/depends-on-refusal.js'
import { queuedNext, queuedReason } from '../../../src/domain/report/queued.js'
import { queueWait, type SlotsRecord } from '../../../src/domain/slots.js'
import type { LoopStatus } from '../../../src/domain/stages.js'

const REPO = 'octo/shop'
const issues = (...numbers: number[]): DependsOnLine => ({ kind: 'issues', issues: numbers })
const refused = (text: string): DependsOnLine => ({ kind: 'refused', message: expect.stringContaining(text) })

describe('the issue body line: the forms people write', () => {
  it.each<[string, string, ReturnType<typeof parseDependsOnLine>]>([
    ['the product issue wording, brackets and hashes', 'depends-on: [#12, #15]', issues(12, 15)],
    ['brackets and plain numbers', 'depends-on: [12, 15]', issues(12, 15)],
    ['a dash list item', 'Steps:\n- depends-on: #12\n- then ship', issues(12)],
    ['a star list item', '* depends-on: #12', issues(12)],
    ['a plus list item', '+ depends-on: #12', issues(12)],
    ['a numbered list item', '1. depends-on: #12', issues(12)],
    ['a task list item', '- [ ] depends-on: #12', issues(12)],
    ['a bold key with its colon', '**depends-on:** #12', issues(12)],
    ['a bold key before its colon', '**depends-on**: #12, #15', issues(12, 15)],
    ['an italic key', '_depends-on_: #12', issues(12)],
    ['a bold list item', '- **Depends-On:** #12', issues(12)],
    ['any case', 'Depends-On: #12', issues(12)],
    ['upper case', 'DEPENDS-ON: 12 15', issues(12, 15)],
    ['this repository named', `depends-on: ${REPO}#12, #15`, issues(12, 15)],
    ['this repository named in another case', 'depends-on: Octo/Shop#12', issues(12)],
    [
      'a link to an issue of this repository',
      'depends-on: https://github.com/octo/shop/issues/12, #15',
      issues(12, 15),
    ],
    ['a link on a GitHub Enterprise server', 'depends-on: https://ghe.example.com/Octo/Shop/issues/12/', issues(12)],
    [
      'a link to a comment of the issue',
      'depends-on: [https://github.com/octo/shop/issues/12#issuecomment-1]',
      issues(12),
    ],
    ['Windows line ends', 'Fix it.\r\ndepends-on: #3\r\n', issues(3)],
    ['indented up to three spaces', '   depends-on: #3', issues(3)],
    ['repeats counted once', 'depends-on: #3 #3 3', issues(3)],
    ['no line at all', 'Fix the totals.', { kind: 'none' }],
    ['prose without the hyphenated key', 'This depends on the payment work.', { kind: 'none' }],
    ['the key in a code span is a quote', 'Support the `depends-on` key in the CLI.', { kind: 'none' }],
    ['the key in a fenced block is a quote', 'Example:\n```yaml\ndepends-on: [1, 2]\n```\nDone.', { kind: 'none' }],
    ['a tilde fence too', '~~~\ndepends-on: nonsense\n~~~', { kind: 'none' }],
    ['an HTML comment (a template hint) is not shown', '<!-- depends-on: #12, #15 -->\nFix it.', { kind: 'none' }],
    ['a multi-line HTML comment', '<!--\nWrite depends-on: #N here\n-->\ndepends-on: #4', issues(4)],
    [
      'an unclosed HTML comment hides the rest, as GitHub shows it',
      'Fix it.\n<!-- depends-on: #2\ndepends-on: #3',
      { kind: 'none' },
    ],
    ['text between two comments is read', '<!-- a -->depends-on: #5<!-- b -->', issues(5)],
    ['a link to the docs anchor', 'See docs/github.md#many-loops-at-once-max-loops-and-depends-on', { kind: 'none' }],
    ['the emphasis closing after the value', '**depends-on: #12, #15**', issues(12, 15)],
  ])('%s', (_name, body, expected) => {
    expect(parseDependsOnLine(body, 7, REPO)).toEqual(expected)
  })
})

describe('the issue body line: refused, never ignored, with a message naming what was found', () => {
  it.each<[string, string, string | null, ReturnType<typeof parseDependsOnLine>]>([
    [
      'another repository',
      'depends-on: octo/other#12',
      REPO,
      refused('"octo/other#12" is an issue of another repository; a loop waits only for loops of octo/shop'),
    ],
    [
      'a named repository when this one is unknown',
      'depends-on: octo/shop#12',
      null,
      refused('is an issue of a named repository'),
    ],
    [
      'a link to another repository’s issue',
      'depends-on: https://github.com/octo/other/issues/12',
      REPO,
      refused('"https://github.com/octo/other/issues/12" is an issue of another repository'),
    ],
    [
      'a link when this repository is unknown',
      'depends-on: https://github.com/octo/shop/issues/12',
      null,
      refused('is an issue of a named repository'),
    ],
    [
      'a link to a pull request',
      'depends-on: https://github.com/octo/shop/pull/12',
      REPO,
      refused('"https://github.com/octo/shop/pull/12" is a pull request; a loop waits only for the loops of issues'),
    ],
    ['a link to something else', 'depends-on: https://github.com/octo/shop/wiki', REPO, refused('is no issue number')],
    ['a word', 'depends-on: #12 and #15', REPO, refused('("and" is no issue number)')],
    ['an empty list: no dependency', 'depends-on: []', REPO, { kind: 'none' }],
    ['a half bracket', 'depends-on: [#12, #15', REPO, refused('"[#12" is no issue number')],
    [
      'the key without its colon',
      'Please note: depends-on #12',
      REPO,
      refused('has a line that mentions depends-on but is no \'depends-on:\' line: "Please note: depends-on #12"'),
    ],
    ['a mention in prose', 'This one depends-on the login fix.', REPO, refused('mentions depends-on')],
    ['a quoted line', '> depends-on: #12', REPO, refused('"> depends-on: #12"')],
    ['two words', 'depends on: #12', REPO, refused('"depends on: #12"')],
    ['an underscore', '- depends_on: #12', REPO, refused('"- depends_on: #12"')],
    ['two lines', '- depends-on: #1\n**depends-on:** #2', REPO, refused("2 'depends-on:' lines; expected one")],
    ['its own issue in brackets', 'depends-on: [7]', REPO, refused('names issue #7 itself')],
  ])('%s', (_name, body, repository, expected) => {
    expect(parseDependsOnLine(body, 7, repository)).toEqual(expected)
  })

  it('a long line is shortened where it is quoted', () => {
    const line = `depends-on: ${'x'.repeat(500)}`
    const result = parseDependsOnLine(line, 7, REPO)
    expect(result.kind === 'refused' && result.message.length).toBeLessThan(400)
  })
})

describe('dependencyCycle: a wait that could never end', () => {
  const line = (entries: Record<string, string[]>): Waiting[] =>
    Object.entries(entries).map(([loopId, dependsOn]) => ({ loopId, dependsOn }))
  it.each<{
    name: string
    inLine: Record<string, string[]>
    request: Waiting
    ended?: string[]
    cycle: string[] | null
  }>([
    {
      name: 'two loops waiting for each other',
      inLine: { 'issue-1': ['issue-2'] },
      request: { loopId: 'issue-2', dependsOn: ['issue-1'] },
      cycle: ['issue-2', 'issue-1', 'issue-2'],
    },
    {
      name: 'a longer ring',
      inLine: { 'issue-1': ['issue-2'], 'issue-2': ['issue-3'] },
      request: { loopId: 'issue-3', dependsOn: ['issue-1'] },
      cycle: ['issue-3', 'issue-1', 'issue-2', 'issue-3'],
    },
    {
      name: 'the shortest ring is named',
      inLine: { a: ['b', 'x'], b: ['c'], c: ['me'], x: ['me'] },
      request: { loopId: 'me', dependsOn: ['a'] },
      cycle: ['me', 'a', 'x', 'me'],
    },
    {
      name: 'a loop waiting for itself (a dispatched job with a shared config)',
      inLine: {},
      request: { loopId: 'issue-12', dependsOn: ['issue-12'] },
      cycle: ['issue-12', 'issue-12'],
    },
    {
      name: 'what its own place in line already waits for counts',
      inLine: { 'issue-1': ['issue-2'], 'issue-2': ['issue-1'] },
      request: { loopId: 'issue-2', dependsOn: [] },
      cycle: ['issue-2', 'issue-1', 'issue-2'],
    },
    {
      name: 'a chain is no cycle',
      inLine: { 'issue-1': ['issue-2'], 'issue-2': ['issue-3'] },
      request: { loopId: 'issue-4', dependsOn: ['issue-1'] },
      cycle: null,
    },
    {
      name: 'a dependency not in line (running, or no loop) is no cycle',
      inLine: { 'issue-1': ['issue-9'] },
      request: { loopId: 'issue-2', dependsOn: ['issue-1', 'issue-3'] },
      cycle: null,
    },
    {
      name: 'a loop that ended waits for nothing',
      inLine: { 'issue-1': ['issue-2'] },
      request: { loopId: 'issue-2', dependsOn: ['issue-1'] },
      ended: ['issue-1'],
      cycle: null,
    },
    {
      name: 'a diamond is no cycle',
      inLine: { b: ['d'], c: ['d'], d: [] },
      request: { loopId: 'a', dependsOn: ['b', 'c'] },
      cycle: null,
    },
  ])('$name', (row) => {
    const ended = new Set(row.ended ?? [])
    expect(dependencyCycle(line(row.inLine), row.request, (loopId) => ended.has(loopId))).toEqual(row.cycle)
  })

  it.each([
    [['issue-1', 'issue-2', 'issue-1'], '#1 → #2 → #1'],
    [['nightly', 'issue-3', 'nightly'], '`nightly` → #3 → `nightly`'],
  ])('names %j as %s', (cycle, name) => {
    expect(nameOfCycle(cycle)).toBe(name)
  })

  it.each([
    ['issue-12', 12],
    ['issue-0', null],
    ['pr-12', null],
    ['issue-12-b', null],
  ])('the issue of loop %s is %s', (loopId, issue) => {
    expect(issueOfLoop(loopId)).toBe(issue)
  })
})

describe('what the refused loop is told', () => {
  it.each([
    {
      name: 'a cycle of two',
      refusal: cycleRefusal('issue-2', ['issue-2', 'issue-1', 'issue-2']),
      says: [
        'did not queue the loop `issue-2`: its `depends-on` would close a cycle, #2 → #1 → #2.',
        '#2 waits for #1, #1 waits for #2: neither could be COMPLETE first, so neither would ever start.',
        "remove #1 from this issue's `depends-on:` line",
        'remove the `loop` label and add it back',
      ],
    },
    {
      name: 'a loop waiting for itself',
      refusal: cycleRefusal('issue-12', ['issue-12', 'issue-12']),
      says: [
        '#12 → #12',
        '#12 waits for itself: it could never be COMPLETE first, so it would never start.',
        'remove #12 from its own `depends-on`',
      ],
    },
    {
      name: 'a cycle of three names every loop in it and the link this issue can break',
      refusal: cycleRefusal('issue-3', ['issue-3', 'issue-1', 'issue-2', 'issue-3']),
      says: [
        'would close a cycle, #3 → #1 → #2 → #3.',
        '#3 waits for #1, #1 waits for #2, #2 waits for #3: none of these 3 loops could be COMPLETE first',
        "remove #1 from this issue's `depends-on:` line",
      ],
    },
    {
      name: "the config's list naming the loop's own issue",
      refusal: dependsOnRefusal('issue-12', 'names issue #12, the issue of this loop itself', 'config'),
      says: [
        "the loop config's `depends-on` names this loop's own issue",
        'for a config used by a single loop',
        "write each issue's dependencies in its body",
      ],
    },
    {
      name: 'an unreadable line, its quote escaped',
      refusal: dependsOnRefusal('issue-3', 'got "<b>@mallory</b>"', 'issue'),
      says: ["the issue's `depends-on:` line could not be read", '&lt;b&gt;@\u200bmallory', '`depends-on: [#12, #15]`'],
    },
    {
      name: 'a number that is no issue, or a pull request',
      refusal: dependsOnRefusal(
        'issue-3',
        '#42: no such issue in acme/demo; #7 is a pull request (depends-on names issues)',
        'target',
      ),
      says: [
        'its `depends-on` names a number that is no issue to wait for',
        '\\#42: no such issue in acme/demo; \\#7 is a pull request',
        'this loop would wait forever',
        "Correct the number in the issue's `depends-on:` line",
      ],
    },
  ])('$name', ({ refusal, says }) => {
    const text = [refusal.title, refusal.reason, refusal.whatToDo].join('\n')
    for (const part of says) expect(text).toContain(part)
  })
})

describe('a queued loop whose wait cannot end by itself says what it needs', () => {
  const record: SlotsRecord = {
    running: [],
    queued: [
      { loopId: 'issue-5', since: 'x', dependsOn: ['issue-4'], workflow: 'loop.yml', ref: 'main' },
      { loopId: 'issue-6', since: 'x', dependsOn: ['issue-4', 'issue-8'], workflow: 'loop.yml', ref: 'main' },
    ],
  }
  it.each<{
    name: string
    loopId: string
    statuses: Record<string, LoopStatus>
    reason: string
    next: string
    endsByItself?: true
  }>([
    {
      name: 'a dependency with no loop',
      loopId: 'issue-5',
      statuses: {},
      reason: 'it waits for #4 to be COMPLETE (#4 had no loop when this was written)',
      next: "#4 had no loop when this was written: if it still has none (no status comment of loop-controller on its issue), label it `loop` (or start it); this loop starts by itself after it is COMPLETE. Only an issue's loop counts",
    },
    {
      name: 'two with no loop',
      loopId: 'issue-6',
      statuses: {},
      reason: 'it waits for #4, #8 to be COMPLETE (#4 and #8 had no loop when this was written)',
      next: '#4 and #8 had no loop when this was written: if one still has none (no status comment of loop-controller on its issue), label it `loop` (or start it); this loop starts by itself after all are COMPLETE',
    },
    {
      name: 'one running, one with no loop',
      loopId: 'issue-6',
      statuses: { 'issue-4': 'running' },
      reason: 'it waits for #4, #8 to be COMPLETE (#8 had no loop when this was written)',
      next: '#8 had no loop when this was written',
    },
    {
      name: 'a dependency running: nothing to do',
      loopId: 'issue-5',
      statuses: { 'issue-4': 'running' },
      reason: 'it waits for #4 to be COMPLETE',
      next: 'It starts by itself once every dependency is COMPLETE and a slot is free; nothing to do.',
      endsByItself: true,
    },
    {
      name: 'a dependency ABORTED never completes',
      loopId: 'issue-5',
      statuses: { 'issue-4': 'aborted' },
      reason: 'a dependency ended short of COMPLETE (#4 ended ABORTED)',
      next: 'It cannot start: #4 was ABORTED and will never be COMPLETE. Drop this loop with `/loop abort`',
    },
    {
      name: 'ABORTED outweighs BLOCKED',
      loopId: 'issue-6',
      statuses: { 'issue-4': 'blocked', 'issue-8': 'aborted' },
      reason: 'a dependency ended short of COMPLETE (#4 ended BLOCKED, #8 ended ABORTED)',
      next: 'It cannot start: #8 was ABORTED',
    },
    {
      name: 'a dependency BLOCKED waits for a resume',
      loopId: 'issue-5',
      statuses: { 'issue-4': 'blocked' },
      reason: 'a dependency ended short of COMPLETE (#4 ended BLOCKED)',
      next: 'It stays queued: #4 must be resumed and reach COMPLETE (comment `/loop resume` there once fixed), then this loop starts by itself',
    },
  ])('$name', (row) => {
    const wait = queueWait(record, row.loopId, new Map(Object.entries(row.statuses)), null)
    expect(wait).not.toBeNull()
    if (!wait) return
    expect(queuedReason(wait, nameOfLoop)).toBe(row.reason)
    expect(queuedNext(wait, nameOfLoop)).toContain(row.next)
    // Only a wait that ends by itself says there is nothing to do.
    expect(queuedNext(wait, nameOfLoop).includes('nothing to do')).toBe(row.endsByItself === true)
  })
})
