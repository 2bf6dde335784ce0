#!/usr/bin/env node
/**
 * What must hold before `vX.Y.Z` is tagged (the release workflow runs this first): the version is
 * semantic, `package.json` and `src/version.ts` both say it, CHANGELOG.md has its section, and the tag
 * is new. Prints the CHANGELOG section (the release notes) on success.
 *
 *   node scripts/release-check.mjs X.Y.Z [--notes FILE] [--root DIR]
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/

/** The section of `changelog` for `version` (`## [X.Y.Z]` up to the next `## `), or null. */
export function changelogSection(changelog, version) {
  const lines = changelog.split('\n')
  const start = lines.findIndex((line) => line.startsWith(`## [${version}]`))
  if (start < 0) return null
  const end = lines.findIndex((line, index) => index > start && line.startsWith('## '))
  return lines
    .slice(start + 1, end < 0 ? lines.length : end)
    .join('\n')
    .trim()
}

/** Every reason `version` cannot be released from the files given; empty when it can. */
export function releaseProblems(version, files) {
  const problems = []
  if (!SEMVER.test(version)) problems.push(`version: expected X.Y.Z (for example 1.2.0); got '${version}'`)
  const pkg = JSON.parse(files.packageJson).version
  if (pkg !== version) problems.push(`package.json: its version is '${pkg}', not '${version}'; set it and commit`)
  const source = /VERSION = '([^']*)'/.exec(files.versionTs)?.[1]
  if (source !== version) problems.push(`src/version.ts: VERSION is '${source}', not '${version}'; set it and commit`)
  const notes = changelogSection(files.changelog, version)
  if (!notes) problems.push(`CHANGELOG.md: no section '## [${version}]' with what changed`)
  if (files.tagExists) problems.push(`git: the tag v${version} exists already; a release is never moved`)
  return problems
}

function main(argv) {
  const version = argv.find((arg) => !arg.startsWith('--')) ?? ''
  const at = (flag) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined)
  const root = resolve(at('--root') ?? '.')
  const read = (path) => readFileSync(join(root, path), 'utf8')
  const tag = spawnSync('git', ['rev-parse', '--verify', '--quiet', `refs/tags/v${version}`], { cwd: root })
  const files = {
    packageJson: read('package.json'),
    versionTs: read(join('src', 'version.ts')),
    changelog: read('CHANGELOG.md'),
    tagExists: tag.status === 0,
  }
  const problems = releaseProblems(version, files)
  if (problems.length > 0) {
    for (const problem of problems) console.error(`release-check: ${problem}`)
    return 1
  }
  const notes = changelogSection(files.changelog, version)
  const out = at('--notes')
  if (out) writeFileSync(out, `${notes}\n`)
  else console.log(notes)
  return 0
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exit(main(process.argv.slice(2)))
