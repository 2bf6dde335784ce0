// `on.<event>.branches`, `branches-ignore`, `paths`, `paths-ignore` as GitHub applies them: a pull
// request's event starts a workflow only when its base branch and the files it changes pass the
// filters, read with GitHub's patterns (`*`, `**`, `?`, `+`, `[]`, `!` in order).
import { describe, expect, it } from 'vitest'
import { filterPattern, passesFilters } from '../sandbox/event-filters.js'
import { parseWorkflow } from '../sandbox/workflow-file.js'
import { sandboxPerTest } from './fixtures.js'

const sandboxes = sandboxPerTest()

/** A workflow named `name` that runs on a fork's pull request with the `filters` under its event. */
const filtered = (name: string, filters: string) => `name: ${name}
on:
  pull_request_target:
    types: [opened]
${filters}
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: echo ${name} ran for \${{ github.event.pull_request.base.ref }}
`

describe('event filters', () => {
  it.each([
    ['*', 'main', true],
    ['*', 'feature/x', false],
    ['**', 'feature/x', true],
    ['feature/*', 'feature/x', true],
    ['feature/*', 'feature/x/y', false],
    ['feature/**', 'feature/x/y', true],
    ['*.md', 'README.md', true],
    ['*.md', 'docs/README.md', false],
    ['**.js', 'src/js/app.js', true],
    ['docs/**/*.md', 'docs/README.md', true],
    ['docs/**/*.md', 'docs/a/b/file.md', true],
    ['**/docs/**', 'dir/docs/my-file.txt', true],
    ['*.jsx?', 'page.js', true],
    ['*.jsx?', 'page.jsx', true],
    ['v2+', 'v222', true],
    ['v[12].[0-9]', 'v1.9', true],
    ['v[12].[0-9]', 'v3.0', false],
    ['a.b', 'axb', false],
  ])('reads the pattern %s as matching %s: %s', (pattern, name, matches) => {
    expect(filterPattern(pattern).test(name)).toBe(matches)
  })

  it('applies the patterns in order (a later ! one deselects), and -ignore when every file is ignored', () => {
    const files = (...names: string[]) => ({ branch: 'main', changedFiles: () => names })
    const paths = ['src/**', '!src/**/*.md']
    expect(passesFilters({ paths }, files('src/a.ts'))).toBe(true)
    expect(passesFilters({ paths }, files('src/notes/a.md'))).toBe(false)
    expect(passesFilters({ paths: [...paths, 'src/keep.md'] }, files('src/keep.md'))).toBe(true)
    expect(passesFilters({ 'paths-ignore': ['docs/**'] }, files('docs/a.md'))).toBe(false)
    expect(passesFilters({ 'paths-ignore': ['docs/**'] }, files('docs/a.md', 'src/a.ts'))).toBe(true)
    expect(passesFilters({ branches: ['releases/**', '!releases/**-alpha'] }, files())).toBe(false)
    expect(
      passesFilters({ branches: ['releases/**', '!releases/**-alpha'] }, { ...files(), branch: 'releases/10' }),
    ).toBe(true)
    expect(
      passesFilters({ branches: ['releases/**', '!releases/**-alpha'] }, { ...files(), branch: 'releases/10-alpha' }),
    ).toBe(false)
    expect(passesFilters({ 'branches-ignore': ['main'] }, files())).toBe(false)
    // A push of a tag: tags filters; a workflow that filters on branches only does not run for it.
    expect(passesFilters({ tags: ['v*', '!v*-rc'] }, { tag: 'v2', changedFiles: () => [] })).toBe(true)
    expect(passesFilters({ tags: ['v*', '!v*-rc'] }, { tag: 'v2-rc', changedFiles: () => [] })).toBe(false)
    expect(passesFilters({ branches: ['**'] }, { tag: 'v2', changedFiles: () => [] })).toBe(false)
    expect(passesFilters({ tags: ['v*'] }, files())).toBe(false)
  })

  it("starts only the workflows whose filters pass a fork's pull request: its base branch and its files", async () => {
    const workflows = {
      'docs-only.yml': filtered('docs-only', "    paths: ['docs/**']"),
      'release-only.yml': filtered('release-only', '    branches: [release]'),
      'not-main.yml': filtered('not-main', '    branches-ignore: [main]'),
      'src-code.yml': filtered('src-code', "    branches: [main]\n    paths: ['src/**', '!src/**/*.md']"),
      'ignore-src.yml': filtered('ignore-src', "    paths-ignore: ['src/**']"),
    }
    const sandbox = await sandboxes.start('src-code.yml', workflows['src-code.yml'], {
      workflows,
      alsoRun: Object.keys(workflows),
      users: { mallory: 'read' },
    })
    await sandbox.openForkPullRequest('mallory', { branch: 'x', files: { 'src/a.ts': 'x', 'src/notes.md': 'y' } })
    const jobs = await sandbox.waitForIdle(20_000)

    expect(jobs.map((job) => [job.event, job.conclusion, job.stdout])).toEqual([
      ['pull_request_target', 'success', 'src-code ran for main\n'],
    ])
    expect(sandbox.engine.problems).toEqual([])
    expect(sandbox.api.violations).toEqual([])
  })

  it.each([
    [
      'a filter of an event that takes none',
      'on:\n  issues:\n    branches: [main]',
      /on.issues: Unexpected value 'branches'/,
    ],
    ['tags under pull_request', 'on:\n  pull_request:\n    tags: [v1]', /on.pull_request: Unexpected value 'tags'/],
    [
      'branches with branches-ignore',
      'on:\n  pull_request:\n    branches: [main]\n    branches-ignore: [dev]',
      /on.pull_request: you may only define one of `branches` and `branches-ignore` for a single event/,
    ],
    [
      'paths with paths-ignore',
      'on:\n  push:\n    paths: [a]\n    paths-ignore: [b]',
      /on.push: you may only define one of `paths` and `paths-ignore` for a single event/,
    ],
    [
      'a filter that is no pattern',
      'on:\n  push:\n    branches: {main: true}',
      /on.push.branches: takes a pattern or a list/,
    ],
  ])('refuses %s when the file is read', (_, on, message) => {
    const text = `${on}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo a\n`
    expect(() => parseWorkflow('w.yml', text)).toThrow(message)
  })
})
