import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
// @ts-expect-error: a plain ES module script, without types.
import { changelogSection, releaseProblems } from '../../../scripts/release-check.mjs'
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
