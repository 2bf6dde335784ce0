// What a person reads, checked in: the job summary, the sticky comment and the annotations of every end
// state, rendered from the fixtures in test/golden/end-states.ts and compared with test/golden/*.
// A changed report shows up as a diff to review like code; `UPDATE_GOLDEN=1` rewrites the files.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { nameOfLoop } from '../../../src/domain/depends-on.js'
import { stickyCommentMarker } from '../../../src/domain/loop-names.js'
import {
  buildReportView,
  locationsOf,
  MAX_ANNOTATIONS,
  renderComment,
  renderSummary,
  selectAnnotations,
} from '../../../src/domain/report/index.js'
import { renderQueued } from '../../../src/domain/report/queued.js'
import { queueWait, type SlotsRecord } from '../../../src/domain/slots.js'
import { endStates } from '../../golden/end-states.js'
import { holder, statuses, waiting } from '../domain/slot-fixtures.js'

const dir = join(import.meta.dirname, '..', '..', 'golden')
const update = process.env.UPDATE_GOLDEN === '1'

function expectGolden(file: string, actual: string): void {
  const path = join(dir, file)
  if (update || !existsSync(path)) {
    mkdirSync(dir, { recursive: true })
    writeFileSync(path, actual)
    if (!update) throw new Error(`${file} did not exist and was written; review it and commit it`)
    return
  }
  expect(actual, `${file} differs; review the change, then UPDATE_GOLDEN=1 to accept it`).toBe(
    readFileSync(path, 'utf8'),
  )
}

/** The annotations a step makes: the end state's first, then the locations within GitHub's 10. */
function annotationsOf(model: ReturnType<typeof endStates>[number]['model']): string {
  const view = buildReportView(model)
  const lines = view.endState ? [`error title=${view.endState.title}: ${view.endState.message}`] : []
  const { annotations } = selectAnnotations(locationsOf(model.checks), MAX_ANNOTATIONS - lines.length)
  for (const a of annotations) lines.push(`error file=${a.file},line=${a.line ?? ''},title=${a.title}: ${a.message}`)
  return lines.join('\n')
}

describe('golden reports of every end state', () => {
  it.each(endStates())('$name', ({ name, model }) => {
    expectGolden(`${name}-summary.md`, renderSummary(model))
    expectGolden(`${name}-comment.md`, renderComment(model, { postedOn: 42 }))
    expectGolden(`${name}-annotations.txt`, `${annotationsOf(model)}\n`)
  })
})

describe('golden reports of a queued loop', () => {
  const runUrl = (run: string) => `https://github.com/acme/demo/actions/runs/${run}`
  const dashboard = { number: 6, url: 'https://github.com/acme/demo/issues/6' }
  // Under max-loops 2 (both slots held), #5 waits for #1, which has no loop yet; #4 waits for a slot
  // behind it, and #2 behind #4.
  const record: SlotsRecord = {
    running: [holder('issue-3'), holder('issue-7')],
    queued: [waiting('issue-5', ['issue-1']), waiting('issue-4'), waiting('issue-2')],
    limit: 2,
  }
  const now = statuses({ 'issue-3': 'running', 'issue-7': 'running', 'issue-4': 'queued', 'issue-2': 'queued' })
  const waitOf = (loopId: string) => {
    const wait = queueWait(record, loopId, now, 2)
    if (!wait) throw new Error(`${loopId} is not in line`)
    return wait
  }

  it('its job summary: waits for a slot, behind a loop waiting for its dependency', () => {
    const writer = { runId: '9100000004', runUrl: runUrl('9100000004'), at: '2026-11-25T09:12:00.000Z' }
    expectGolden(
      'queued-summary.md',
      renderQueued({ loopId: 'issue-4', wait: waitOf('issue-4'), writer, dashboard }, nameOfLoop),
    )
  })

  it('its comment, rewritten by the job of a loop that ended: waits for a dependency with no loop', () => {
    const writer = {
      runId: '9100000003',
      runUrl: runUrl('9100000003'),
      at: '2026-11-25T09:20:00.000Z',
      releasedBy: 'issue-9',
    }
    const body = renderQueued({ loopId: 'issue-5', wait: waitOf('issue-5'), writer, dashboard }, nameOfLoop)
    expectGolden('queued-comment.md', `${stickyCommentMarker('issue-5')}\n${body}`)
  })
})
