#!/usr/bin/env node
/**
 * What must hold before `vX.Y.Z` is tagged (the release workflow runs this first): the version is
 * semantic, `package.json` and `src/version.ts` both say it, CHANGELOG.md has its section, and the tag
 * is new. Prints the CHANGELOG section (the release notes) on success. With `--pin-action FILE` it
 * instead rewrites FILE (the reusable workflow) to run the action at vX.Y.Z: the release commit.
 *
 *   node scripts/release-check.mjs X.Y.Z [--notes FILE] [--root DIR]
 *   node scripts/release-check.mjs X.Y.Z --pin-action .github/workflows/loop.yml [--root DIR]
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

/** A step's `uses:` of the action itself at a tag (`@v1`, `@v1.2.3`); a reusable workflow's path never matches. */
const ACTION_USES = /^(\s*(?:-\s+)?uses:\s*)(['"]?)loop-controller\/loop-controller@([^\s'"#]+)\2(\s*(?:#.*)?)$/

/**
 * The reusable workflow as the release of `version` holds it: each `uses: loop-controller/loop-controller@vN`
 * line (N the version's major) reads `@vX.Y.Z`, so a caller that pins the workflow's tag runs that release
 * of the action in every job, not whatever `vN` is today. Throws when there is no such line, or when a
 * reference to the action at another ref would stay (it would run a version the release does not name).
 */
export function pinActionUses(workflow, version) {
  if (!SEMVER.test(version)) throw new Error(`version: expected X.Y.Z (for example 1.2.0); got '${version}'`)
  const major = `v${version.split('.')[0]}`
  let pinned = 0
  const lines = workflow.split('\n').map((line) => {
    const uses = ACTION_USES.exec(line)
    if (!uses || uses[3] !== major) return line
    pinned++
    return `${uses[1]}${uses[2]}loop-controller/loop-controller@v${version}${uses[2]}${uses[4]}`
  })
  if (pinned === 0) {
    throw new Error(
      `no 'uses: loop-controller/loop-controller@${major}' line to pin to v${version}: the release's workflow would not run its own action (main's uses the major tag, ${major})`,
    )
  }
  const other = lines.find((line) => {
    const uses = ACTION_USES.exec(line)
    return uses !== null && uses[3] !== `v${version}`
  })
  if (other !== undefined) {
    throw new Error(`'${other.trim()}' would stay: every use of the action in the release must read @v${version}`)
  }
  return { workflow: lines.join('\n'), pinned }
}

function pinAction(version, root, file) {
  const path = join(root, file)
  try {
    const { workflow, pinned } = pinActionUses(readFileSync(path, 'utf8'), version)
    writeFileSync(path, workflow)
    console.log(`release-check: ${file}: ${pinned} use(s) of the action now read @v${version}`)
    return 0
  } catch (error) {
    console.error(`release-check: ${file}: ${error.message}`)
    return 1
  }
}

function main(argv) {
  const version = argv.find((arg) => !arg.startsWith('--')) ?? ''
  const at = (flag) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined)
  const root = resolve(at('--root') ?? '.')
  const pin = at('--pin-action')
  if (pin) return pinAction(version, root, pin)
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
