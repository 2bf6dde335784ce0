// The fan-out example's calling job holds one group per loop whatever event started it, the same loop
// id loop.yml's own jobs derive: the example, and the README and docs/github.md that show its job, say
// the same group, evaluated here with the sandbox's expression engine for each event the example takes
// or tells users to copy (pull_request labels and reviews on the loop's pull request included).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { interpolate } from '../../sandbox/expressions.js'

const root = join(import.meta.dirname, '..', '..', '..')
const read = (path: string) => readFileSync(join(root, path), 'utf8')

const example = parse(read('examples/workflows/loop-fan-out.yml')) as {
  jobs: { loop: { concurrency: { group: string } } }
}
const callerGroup = example.jobs.loop.concurrency.group
const reusable = parse(read('.github/workflows/loop.yml')) as {
  jobs: Record<string, { concurrency?: { group: string } }>
}
const decideGroup = reusable.jobs.decide!.concurrency!.group

/** The `group:` line of the fan-out caller shown in a Markdown file. */
function shownGroup(path: string): string {
  const lines = read(path)
    .split('\n')
    .filter((line) => line.trim().startsWith('group: loop-controller-run/'))
  expect(lines, path).toHaveLength(1)
  return lines[0]!.trim().slice('group: '.length)
}

const RUN_ID = 4242
const loopPull = { number: 12, head: { ref: 'loop/demo' } }
const events: Array<{ name: string; github: Record<string, unknown>; inputs?: Record<string, string>; loop: string }> =
  [
    {
      name: 'a dispatch',
      github: { event_name: 'workflow_dispatch', event: {} },
      inputs: { 'loop-id': 'demo' },
      loop: 'loop/demo',
    },
    {
      name: "a label on the loop's pull request",
      github: {
        event_name: 'pull_request',
        event: { action: 'labeled', pull_request: loopPull, label: { name: 'loop/stop' } },
      },
      loop: 'loop/demo',
    },
    {
      name: "the merge of the loop's pull request",
      github: { event_name: 'pull_request', event: { action: 'closed', pull_request: { ...loopPull, merged: true } } },
      loop: 'loop/demo',
    },
    {
      name: "an approving review of the loop's pull request",
      github: { event_name: 'pull_request_review', event: { review: { state: 'approved' }, pull_request: loopPull } },
      loop: 'loop/demo',
    },
    {
      name: 'a `loop` label on an ordinary pull request',
      github: {
        event_name: 'pull_request',
        event: { action: 'labeled', pull_request: { number: 12, head: { ref: 'feature' } }, label: { name: 'loop' } },
      },
      loop: 'loop/pr-12',
    },
    {
      name: 'a label on an issue',
      github: { event_name: 'issues', event: { action: 'labeled', issue: { number: 7 }, label: { name: 'loop' } } },
      loop: 'loop/issue-7',
    },
    {
      name: 'a comment on a pull request',
      github: {
        event_name: 'issue_comment',
        event: { issue: { number: 12, pull_request: {} }, comment: { body: '/loop stop' } },
      },
      loop: `pull-request-comment-${RUN_ID}`,
    },
  ]

describe("the fan-out example's caller group", () => {
  it('is the same in the example, README.md and docs/github.md', () => {
    expect(shownGroup('README.md')).toBe(callerGroup)
    expect(shownGroup('docs/github.md')).toBe(callerGroup)
  })

  it.each(events)("is the loop's own for $name, as loop.yml's decide derives it", ({ github, inputs, loop }) => {
    const context = { github: { ...github, run_id: RUN_ID }, inputs: inputs ?? {} }
    expect(interpolate(callerGroup, context)).toBe(`loop-controller-run/${loop}`)
    expect(interpolate(decideGroup, context)).toBe(`loop-controller-${loop}`)
  })
})
