/**
 * The project explains itself: no tracked file cites the design documents that were never part of the
 * repository. The names are built here so this file does not contain them itself.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))
const thisFile = 'test/unit/docs-citations.test.ts'
const OUTSIDE_DOCS = ['DESIGN', 'STYLE', 'MOCKUPS'].map((name) => `${name}.md`)

/** `path:line: text` for every line of `files` that names one of `needles`. */
function citations(files: ReadonlyMap<string, string>, needles: readonly string[]): string[] {
  const found: string[] = []
  for (const [path, text] of files) {
    text.split('\n').forEach((line, index) => {
      if (needles.some((needle) => line.includes(needle))) found.push(`${path}:${index + 1}: ${line.trim()}`)
    })
  }
  return found
}

/**
 * Every tracked file but this one. `dist/` is left out: it is generated from `src/`, which is checked,
 * and is rebuilt only after a change lands, so it would lag behind every fix made here.
 */
function trackedFiles(): Map<string, string> {
  const paths = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\0')
    .filter((path) => path !== '' && path !== thisFile && !path.startsWith('dist/'))
    .filter((path) => existsSync(join(root, path)))
  return new Map(paths.map((path) => [path, readFileSync(join(root, path), 'utf8')]))
}

describe('citations of design documents outside the repository', () => {
  it.each([
    ['a comment citing one', new Map([['src/a.ts', `// x\n/** The rules (${OUTSIDE_DOCS[0]} section 4). */`]]), 1],
    ['every one of them', new Map([['README.md', OUTSIDE_DOCS.join('\n')]]), 3],
    ['a doc in the repository', new Map([['src/a.ts', '// see docs/architecture.md']]), 0],
  ] as const)('finds %s', (_name, files, count) => {
    expect(citations(files, OUTSIDE_DOCS)).toHaveLength(count)
  })

  it('reports the path and line', () => {
    const files = new Map([['src/a.ts', `// x\n// (${OUTSIDE_DOCS[1]} point 3)`]])
    expect(citations(files, OUTSIDE_DOCS)).toEqual([`src/a.ts:2: // (${OUTSIDE_DOCS[1]} point 3)`])
  })

  it('are in no tracked file', () => {
    const files = trackedFiles()
    expect(files.size).toBeGreaterThan(100)
    expect(citations(files, OUTSIDE_DOCS)).toEqual([])
  })
})
