// Each example workflow that runs a loop names its runs (`run-name`), so the Actions tab tells one
// loop's iterations from another's instead of listing every run as "loop": evaluated here with the
// sandbox's expression engine for a dispatch (the controller's, with an iteration; a person's, without)
// and for each other event the file takes.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { interpolate } from '../../sandbox/expressions.js'

const root = join(import.meta.dirname, '..', '..', '..')

interface Workflow {
  'run-name'?: string
  on: Record<string, unknown>
}

const EXAMPLES = ['loop-step.yml', 'loop-from-dispatch.yml', 'loop-from-issue.yml', 'loop-fan-out.yml'] as const

const workflow = (name: string) => parse(readFileSync(join(root, 'examples', 'workflows', name), 'utf8')) as Workflow

/** One event of each kind an example takes, on issue or pull request #12 (the loop's, on `loop/demo`). */
const OTHER_EVENTS: Record<string, { event: Record<string, unknown>; title: string }> = {
  issues: { event: { action: 'labeled', issue: { number: 12 } }, title: 'loop · issues labeled on #12' },
  issue_comment: {
    event: { action: 'created', issue: { number: 12, pull_request: {} } },
    title: 'loop · issue_comment created on #12',
  },
  pull_request: {
    event: { action: 'labeled', pull_request: { number: 12, head: { ref: 'loop/demo' } } },
    title: 'loop · pull_request labeled on #12',
  },
  pull_request_review: {
    event: { action: 'submitted', pull_request: { number: 12, head: { ref: 'loop/demo' } } },
    title: 'loop · pull_request_review submitted on #12',
  },
}

describe('the example workflows name their runs', () => {
  it.each(EXAMPLES)('%s: the loop and its iteration for a dispatch', (name) => {
    const runName = workflow(name)['run-name']
    expect(runName, name).toBeDefined()
    const dispatch = (inputs: Record<string, string>) =>
      interpolate(runName!, { github: { event_name: 'workflow_dispatch', event: { inputs } }, inputs })
    expect(dispatch({ 'loop-id': 'demo', iteration: '3' })).toBe('loop demo · iteration 3')
    expect(dispatch({ 'loop-id': 'demo', iteration: '' })).toBe('loop demo · by hand')
  })

  it.each(EXAMPLES)('%s: the event and its issue or pull request for any other trigger', (name) => {
    const { 'run-name': runName, on } = workflow(name)
    const others = Object.keys(on).filter((event) => event !== 'workflow_dispatch')
    for (const event of others) {
      const known = OTHER_EVENTS[event]
      expect(known, `${name} runs on ${event}, which this test does not know`).toBeDefined()
      expect(interpolate(runName!, { github: { event_name: event, event: known!.event }, inputs: {} })).toBe(
        known!.title,
      )
    }
  })
})
