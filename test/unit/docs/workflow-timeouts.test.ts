// Every job a user copies that runs steps sets `timeout-minutes` (GitHub's default is 360: a hung agent
// would hold the loop's concurrency group for six hours): the reusable workflow's jobs take its input, the
// examples' and the README's quick start's set one. A job that calls the reusable workflow cannot set one;
// the called jobs do.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

const root = join(import.meta.dirname, '..', '..', '..')
const read = (path: string) => readFileSync(join(root, path), 'utf8')

interface Job {
  uses?: string
  steps?: unknown[]
  'timeout-minutes'?: number | string
}
const jobsOf = (text: string) => Object.entries((parse(text) as { jobs: Record<string, Job> }).jobs)

/** The first fenced YAML block after `heading` in README.md: the quick start's workflow. */
function quickStart(): string {
  const text = read('README.md')
  const block = /\n```yaml\n([\s\S]*?)\n```\n/.exec(text.slice(text.indexOf('\n### Quick start\n')))
  expect(block, 'README.md has a yaml block under "### Quick start"').not.toBeNull()
  return block![1]!
}

const copied = [
  ...readdirSync(join(root, 'examples', 'workflows')).map((file) => ({
    file,
    text: read(join('examples', 'workflows', file)),
  })),
  { file: 'README.md, Quick start', text: quickStart() },
].map(({ file, text }) => ({ file, running: jobsOf(text).filter(([, job]) => job.uses === undefined) }))

describe('timeout-minutes', () => {
  it("is the workflow's input on every job of .github/workflows/loop.yml (the default below 1, which a step refuses)", () => {
    for (const [name, job] of jobsOf(read('.github/workflows/loop.yml'))) {
      expect(job['timeout-minutes'], name).toBe(
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
        '${{ inputs.timeout-minutes >= 1 && inputs.timeout-minutes || 60 }}',
      )
    }
  })

  it('is for the examples and the quick start that run steps (the others call loop.yml)', () => {
    expect(copied.filter(({ running }) => running.length > 0).map(({ file }) => file)).toEqual([
      'loop-step.yml',
      'loop-sweeper.yml',
      'README.md, Quick start',
    ])
  })

  it.each(copied)('is set, below 6 hours, on every job of $file that runs steps', ({ running }) => {
    for (const [name, job] of running) {
      expect(typeof job['timeout-minutes'], name).toBe('number')
      expect(job['timeout-minutes'], name).toBeLessThan(360)
    }
  })
})
