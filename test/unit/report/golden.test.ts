// What a person reads, checked in: the job summary, the sticky comment and the annotations of every end
// state, rendered from the fixtures in test/golden/end-states.ts and compared with test/golden/*.
// A changed report shows up as a diff to review like code; `UPDATE_GOLDEN=1` rewrites the files.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  buildReportView,
  locationsOf,
  MAX_ANNOTATIONS,
  renderComment,
  renderSummary,
  selectAnnotations,
} from '../../../src/domain/report/index.js'
import { endStates } from '../../golden/end-states.js'

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
