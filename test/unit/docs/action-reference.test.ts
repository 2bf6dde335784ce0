// The README's "Inputs" and "Outputs" tables list exactly what action.yml declares, in its order, each
// input with action.yml's default; and every input the reusable workflow passes on under the action's
// name has the action's default there too, so "The action's `X`" in docs/github.md holds for its default.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

const root = join(import.meta.dirname, '..', '..', '..')
const read = (path: string) => readFileSync(join(root, path), 'utf8')

interface Declared {
  description: string
  default?: string | number | boolean
}
const action = parse(read('action.yml')) as { inputs: Record<string, Declared>; outputs: Record<string, Declared> }
const reusable = parse(read('.github/workflows/loop.yml')) as {
  on: { workflow_call: { inputs: Record<string, Declared> } }
}

/** The rows of the first table under the README's `### <heading>`, cells trimmed and unquoted. */
function readmeRows(heading: string): string[][] {
  const text = read('README.md')
  const start = text.indexOf(`\n### ${heading}\n`)
  expect(start, `README.md has no section "### ${heading}"`).toBeGreaterThan(0)
  const end = text.indexOf('\n#', start + 1)
  const lines = text.slice(start, end).split('\n')
  const first = lines.findIndex((line) => line.startsWith('|'))
  const after = lines.slice(first).findIndex((line) => !line.startsWith('|'))
  const table = lines.slice(first, after < 0 ? undefined : first + after)
  return table.slice(2).map((line) =>
    line
      .slice(1, -1)
      .split(' | ')
      .map((cell) => cell.trim().replace(/^`(.*)`$/, '$1')),
  )
}

const shownDefault = (input: Declared) => (input.default === undefined ? '' : String(input.default))

describe('README.md, "Inputs" and "Outputs"', () => {
  it("lists every input of action.yml and no other, in action.yml's order, with its default", () => {
    const documented = readmeRows('Inputs').map(([name, fallback]) => [name, fallback])
    const declared = Object.entries(action.inputs).map(([name, input]) => [name, shownDefault(input)])
    expect(documented).toEqual(declared)
  })

  it('says what each input does', () => {
    for (const [name, , what] of readmeRows('Inputs')) expect(what?.length ?? 0, name).toBeGreaterThan(10)
  })

  it("lists every output of action.yml and no other, in action.yml's order", () => {
    expect(readmeRows('Outputs').map(([name]) => name)).toEqual(Object.keys(action.outputs))
  })
})

describe('the reusable workflow, beside action.yml', () => {
  it("gives each input it shares with the action the action's default", () => {
    const shared = Object.entries(reusable.on.workflow_call.inputs).filter(([name]) => name in action.inputs)
    expect(shared.length).toBeGreaterThan(10)
    for (const [name, input] of shared) expect(shownDefault(input), name).toBe(shownDefault(action.inputs[name]!))
  })
})
