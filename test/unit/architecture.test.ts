/**
 * The layer walls and the file-length limit, checked on the real `src/` tree (the rules and their own
 * tests are in `architecture-rules.ts`). The length report is printed so growth shows in CI logs.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { checkArchitecture, formatLengthReport, lengthReport } from './architecture-rules.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

function sourceTree(): Map<string, string> {
  const paths = readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
  const files = paths.map((path) => [relative(root, path).split(sep).join('/'), readFileSync(path, 'utf8')] as const)
  // Sorted, so the violations come in the same order on every file system.
  return new Map(files.sort(([a], [b]) => a.localeCompare(b)))
}

describe('the architecture of src/', () => {
  const files = sourceTree()

  it('reports the longest files', () => {
    const report = lengthReport(files)
    console.log(formatLengthReport(report))
    expect(report.longest.length).toBeGreaterThan(0)
  })

  it('keeps the layer walls and the file-length limit', () => {
    const violations = checkArchitecture(files)
    expect(violations.map((violation) => violation.message)).toEqual([])
  })
})
