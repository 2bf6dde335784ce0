// docs/github.md, "The reusable workflow", lists exactly what .github/workflows/loop.yml declares: every
// input (with its type and default), secret and output, no more and no fewer; and it names every input
// of action.yml the workflow does not take, so a caller knows what is not there.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

const root = join(import.meta.dirname, '..', '..', '..')
const read = (path: string) => readFileSync(join(root, path), 'utf8')

interface Declared {
  description: string
  type?: string
  default?: string | number | boolean
}
const reusable = parse(read('.github/workflows/loop.yml')) as {
  on: {
    workflow_call: {
      inputs: Record<string, Declared>
      secrets: Record<string, Declared>
      outputs: Record<string, Declared>
    }
  }
}
const declared = reusable.on.workflow_call
const action = parse(read('action.yml')) as { inputs: Record<string, unknown> }

/** The section of docs/github.md under `## The reusable workflow`, up to the next `## `. */
function section(): string {
  const text = read('docs/github.md')
  const start = text.indexOf('\n## The reusable workflow\n')
  expect(start, 'docs/github.md has no section "## The reusable workflow"').toBeGreaterThan(0)
  const end = text.indexOf('\n## ', start + 1)
  return text.slice(start, end < 0 ? undefined : end)
}

/** The rows of each Markdown table in `text`, in order, keyed by the header's first cell; cells unquoted. */
function tables(text: string): Map<string, string[][]> {
  const found = new Map<string, string[][]>()
  let rows: string[][] | null = null
  for (const line of text.split('\n')) {
    if (!line.startsWith('|')) {
      rows = null
      continue
    }
    const cells = line
      .slice(1, -1)
      .split(' | ')
      .map((cell) => cell.trim().replace(/^`(.*)`$/, '$1'))
    if (rows === null) {
      rows = []
      found.set(cells[0]!, rows)
    } else if (!/^-+$/.test(cells[0]!)) rows.push(cells)
  }
  return found
}

const reference = section()
const listed = tables(reference)
const names = (header: string) => (listed.get(header) ?? []).map((row) => row[0])

describe('docs/github.md, "The reusable workflow"', () => {
  it('lists every input loop.yml declares and no other, in its order, with its type and default', () => {
    const rows = listed.get('input') ?? []
    const documented = rows.map(([name, type, fallback]) => [name, type, fallback])
    const expected = Object.entries(declared.inputs).map(([name, input]) => [
      name,
      input.type,
      input.default === undefined || input.default === '' ? '' : String(input.default),
    ])
    expect(documented).toEqual(expected)
  })

  it('lists every secret loop.yml declares and no other', () => {
    expect(names('secret')).toEqual(Object.keys(declared.secrets))
  })

  it('lists every output loop.yml declares and no other', () => {
    expect(names('output')).toEqual(Object.keys(declared.outputs))
  })

  it('names each input of action.yml that loop.yml does not take', () => {
    const missing = Object.keys(action.inputs).filter((name) => !(name in declared.inputs))
    expect(missing.length).toBeGreaterThan(0)
    const notExposed = reference.slice(reference.indexOf('Action inputs it does not expose'))
    for (const name of missing) expect(notExposed, name).toContain(`\`${name}\``)
  })
})
