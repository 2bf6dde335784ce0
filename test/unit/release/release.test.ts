import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
// @ts-expect-error: a plain ES module script, without types.
import { changelogSection, pinActionUses, releaseProblems } from '../../../scripts/release-check.mjs'
import { schemaUrl } from '../../../src/cli/init.js'
import { VERSION } from '../../../src/version.js'

const root = resolve(import.meta.dirname, '..', '..', '..')
const read = (path: string) => readFileSync(join(root, path), 'utf8')
const files = (over: Partial<Record<string, unknown>> = {}) => ({
  packageJson: JSON.stringify({ version: '1.2.0' }),
  versionTs: "export const VERSION = '1.2.0'\n",
  changelog: '# Changelog\n\n## [1.2.0]\n\n- a fix\n\n## [1.1.0]\n\n- older\n',
  tagExists: false,
  ...over,
})

describe('release check', () => {
  it.each([
    ['all in order', '1.2.0', files(), []],
    ['not semantic', 'v1.2', files(), [/version: expected X.Y.Z/, /package.json/, /src\/version.ts/, /CHANGELOG/]],
    [
      'package.json behind',
      '1.2.0',
      files({ packageJson: '{"version":"1.1.0"}' }),
      [/package.json: its version is '1.1.0'/],
    ],
    ['the source behind', '1.2.0', files({ versionTs: "VERSION = '1.1.0'" }), [/src\/version.ts: VERSION is '1.1.0'/]],
    ['no changelog section', '1.2.0', files({ changelog: '# Changelog\n' }), [/no section '## \[1.2.0\]'/]],
    ['the tag exists', '1.2.0', files({ tagExists: true }), [/the tag v1.2.0 exists already/]],
  ] as const)('%s', (_label, version, given, expected) => {
    const problems = releaseProblems(version, given) as string[]
    expect(problems).toHaveLength(expected.length)
    for (const [i, pattern] of expected.entries()) expect(problems[i]).toMatch(pattern)
  })

  it('takes the release notes from the version`s section alone', () => {
    expect(changelogSection(files().changelog, '1.2.0')).toBe('- a fix')
    expect(changelogSection(files().changelog, '1.1.0')).toBe('- older')
    expect(changelogSection(files().changelog, '9.9.9')).toBeNull()
  })

  it('the repository as committed is releasable at its own version', () => {
    const committed = {
      packageJson: read('package.json'),
      versionTs: read('src/version.ts'),
      changelog: read('CHANGELOG.md'),
      tagExists: false,
    }
    expect(releaseProblems(JSON.parse(committed.packageJson).version, committed)).toEqual([])
  })

  it('init points $schema at the schema of this release`s own tag, a file the tag holds', () => {
    expect(schemaUrl(VERSION)).toBe(
      `https://raw.githubusercontent.com/loop-controller/loop-controller/v${VERSION}/schema/loop-config.schema.json`,
    )
    expect(existsSync(join(root, 'schema', 'loop-config.schema.json'))).toBe(true)
    // The release workflow tags exactly this version.
    expect(read('.github/workflows/release.yml')).toContain('git tag -a "v$VERSION"')
  })
})

describe('the release commit: the reusable workflow runs the action at the release', () => {
  const workflow = [
    '# Runs loop-controller/loop-controller@v1 in each job.',
    'jobs:',
    '  plan:',
    '    steps:',
    '      - uses: actions/checkout@v7',
    '      - name: Plan',
    '        uses: loop-controller/loop-controller@v1',
    '      - uses: "loop-controller/loop-controller@v1"   # decide',
    '  caller:',
    '    uses: loop-controller/loop-controller/.github/workflows/loop.yml@v1',
    '',
  ].join('\n')

  it('rewrites exactly the uses: lines of the action at the major, and nothing else', () => {
    const { workflow: pinned, pinned: count } = pinActionUses(workflow, '1.4.2') as { workflow: string; pinned: number }
    expect(count).toBe(2)
    expect(pinned.split('\n')).toEqual([
      '# Runs loop-controller/loop-controller@v1 in each job.',
      'jobs:',
      '  plan:',
      '    steps:',
      '      - uses: actions/checkout@v7',
      '      - name: Plan',
      '        uses: loop-controller/loop-controller@v1.4.2',
      '      - uses: "loop-controller/loop-controller@v1.4.2"   # decide',
      '  caller:',
      '    uses: loop-controller/loop-controller/.github/workflows/loop.yml@v1',
      '',
    ])
  })

  it.each([
    ['no use of the action at the major', workflow, '2.0.0', /no 'uses: loop-controller\/loop-controller@v2' line/],
    [
      'a use at another ref would stay',
      `${workflow}      - uses: loop-controller/loop-controller@main\n`,
      '1.4.2',
      /'- uses: loop-controller\/loop-controller@main' would stay/,
    ],
    ['a version that is not X.Y.Z', workflow, 'v1.4', /version: expected X.Y.Z/],
  ])('fails loudly: %s', (_label, text, version, message) => {
    expect(() => pinActionUses(text, version)).toThrow(message)
  })

  it('the committed reusable workflow says @v1 in every use of the action, and the release pins each one', () => {
    const committed = read('.github/workflows/loop.yml')
    const uses = committed.split('\n').filter((line) => /^\s*(- )?uses: loop-controller\/loop-controller@/.test(line))
    expect(uses.length).toBeGreaterThan(0)
    for (const line of uses) expect(line.trim()).toMatch(/^(- )?uses: loop-controller\/loop-controller@v1$/)
    const { workflow: pinned, pinned: count } = pinActionUses(committed, VERSION) as {
      workflow: string
      pinned: number
    }
    expect(count).toBe(uses.length)
    expect(pinned).not.toMatch(/loop-controller\/loop-controller@v1\s/)
  })

  it('release.yml tags the release commit: the pin and its commit come before the tags, the major tag moves once the release is published', () => {
    const release = read('.github/workflows/release.yml')
    const order = [
      'npm test',
      'release-check.mjs "$VERSION" --pin-action .github/workflows/loop.yml',
      'git commit',
      'git tag -a "v$VERSION"',
      'git push origin "refs/tags/v$VERSION"',
      'gh release create "v$VERSION"',
      'git tag -fa "$major"',
      'git push --force origin "refs/tags/$major"',
    ].map((step) => [step, release.indexOf(step)] as const)
    for (const [step, at] of order) expect([step, at]).not.toEqual([step, -1])
    expect(order.map(([, at]) => at)).toEqual(order.map(([, at]) => at).sort((a, b) => a - b))
  })
})
