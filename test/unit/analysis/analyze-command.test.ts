import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { runAnalyzeCommand } from '../../../src/cli/analyze.js'

const fixtures = join(import.meta.dirname, '../../fixtures')

async function run(args: string[], stdin = '') {
  const out: string[] = []
  const err: string[] = []
  const code = await runAnalyzeCommand(args, {
    stdin: Readable.from([Buffer.from(stdin)]),
    stdout: (s) => out.push(s),
    stderr: (s) => err.push(s),
    cwd: fixtures,
  })
  return { code, out: out.join(''), err: err.join('') }
}

describe('loop-controller analyze', () => {
  it('prints one JSON object for a file', async () => {
    const { code, out } = await run(['type-error/tsc.txt', '--json'])
    expect(code).toBe(0)
    const json = JSON.parse(out)
    expect(json).toMatchObject({ pattern: 'type-error', strategy: 'context_expand' })
    expect(json.locations[0]).toMatchObject({ file: 'src/a.ts', line: 1, column: 14 })
    expect(json.confidence).toBeGreaterThanOrEqual(0.7)
    expect(json.signature).toMatch(/^type-error:ts:[0-9a-f]{8}$/)
  })
  it('reads stdin with - and uses --kind', async () => {
    const { code, out } = await run(['-', '--kind=test', '--json'], 'something failing\n')
    expect(code).toBe(0)
    expect(JSON.parse(out).pattern).toBe('test-failure')
  })
  it('prints a readable form without --json', async () => {
    const { out } = await run(['lint-error/eslint.txt'])
    expect(out).toMatch(/^pattern: +lint-error$/m)
    expect(out).toMatch(/app\.js:1:7 +'unused' is assigned/)
  })
  it("prints the excerpt the loop shows of the output (the failing test's name and what it received)", async () => {
    const { out } = await run(['test-failure/jest-cart.txt'])
    const excerpt = out.slice(out.indexOf('\nexcerpt:\n'))
    expect(excerpt).toMatch(/^ {2}● /m)
    expect(excerpt).toMatch(/^ {2}\s*Received/m)
    const json = JSON.parse((await run(['test-failure/jest-cart.txt', '--json'])).out)
    expect(json.excerpt).toMatch(/● [^\n]+\n/)
    expect(json.excerpt).toMatch(/Received/)
  })
  it('uses a --patterns file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'analyze-'))
    writeFileSync(
      join(dir, 'p.yml'),
      'patterns:\n  - id: gremlin\n    anchors: [GREMLIN]\n    signals: [gremlin]\n    strategy: escalate\n',
    )
    writeFileSync(join(dir, 'log.txt'), 'a GREMLIN in the gremlin works\n')
    const { code, out } = await run([join(dir, 'log.txt'), '--patterns', join(dir, 'p.yml'), '--json'])
    expect(code).toBe(0)
    expect(JSON.parse(out).pattern).toBe('gremlin')
  })
  it.each([
    [['--kind', 'nope'], /--kind must be one of build, test/],
    [['--bogus'], /Unknown option '--bogus'/],
    [['a', 'b'], /Only one input file/],
    [['--patterns'], /needs a value/],
    [['missing-file.txt'], /Cannot read 'missing-file.txt'/],
    [['-', '--patterns', 'nope.yml'], /Cannot read --patterns file 'nope.yml'/],
  ])('exits 2 on %j', async (args, message) => {
    const { code, err } = await run(args)
    expect(code).toBe(2)
    expect(err).toMatch(message)
  })
})
