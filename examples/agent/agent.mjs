#!/usr/bin/env node
// A deterministic scripted agent for the demo and the tests. It stands in for a coding agent
// (claude -p, codex exec, aider, ...): it reads the context the controller hands it
// (LOOP_CONTEXT_FILE) and repairs one thing the failure analysis points at, the way a focused agent
// would. Nothing in src/ knows about it.
//
// Repairs it knows:
//   - type-error "Type 'A' is not assignable to type 'B'" under a JSDoc `@type {B}`: retype it as A;
//   - import-not-found for a relative module: point the import at the closest existing file name;
//   - test-failure: the edits listed in repairs.json for the failing test file (its answer key).
// It writes usage to LOOP_OUTPUT_FILE like a real agent wrapper would, and exits 3 with a `BLOCKED:`
// line when it has nothing it can do for the failure it was given.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const contextFile = process.env.LOOP_CONTEXT_FILE
if (!contextFile) {
  console.error('agent: LOOP_CONTEXT_FILE is not set; run me from loop-controller')
  process.exit(2)
}
const context = JSON.parse(readFileSync(contextFile, 'utf8'))
const root = process.cwd()
const failure = context.failure
const say = (line) => console.log(`agent: ${line}`)

function report(changes) {
  if (process.env.LOOP_OUTPUT_FILE) {
    const tokens = 800 + 150 * changes
    writeFileSync(
      process.env.LOOP_OUTPUT_FILE,
      JSON.stringify({ usage: { tokens, costUsd: tokens * 0.000003 }, session: `demo-session-${context.iteration}` }),
    )
  }
}

say(`iteration ${context.iteration}, stage ${context.stage}, strategy ${context.strategy ?? 'none'}`)
if (!failure) {
  say('no failure to repair: the goal is already what the checks verify')
  report(0)
  process.exit(0)
}
say(`looking at ${failure.check}: ${failure.pattern ?? 'unclassified'} (${(failure.locations ?? []).length} locations)`)

function editFile(file, transform) {
  const path = resolve(root, file)
  if (!existsSync(path)) return false
  const before = readFileSync(path, 'utf8')
  const after = transform(before)
  if (after === before) return false
  writeFileSync(path, after)
  say(`edited ${relative(root, path)}`)
  return true
}

function levenshtein(a, b) {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1))
      previous = current
    }
  }
  return row[b.length]
}

function repairTypeError(location) {
  const match = /Type '([^']+)' is not assignable to type '([^']+)'/.exec(location.message ?? '')
  if (!match || !location.line) return false
  const [, actual, declared] = match
  return editFile(location.file, (text) => {
    const lines = text.split('\n')
    for (let i = location.line - 2; i >= Math.max(0, location.line - 4); i--) {
      if (lines[i]?.includes(`@type {${declared}}`)) {
        lines[i] = lines[i].replace(`@type {${declared}}`, `@type {${actual}}`)
        return lines.join('\n')
      }
    }
    return text
  })
}

function repairMissingImport(location) {
  const match = /Cannot find module '(\.{1,2}\/[^']+)'/.exec(location.message ?? '')
  if (!match) return false
  const specifier = match[1]
  const folder = dirname(resolve(root, location.file, '..', specifier))
  const wanted = basename(specifier)
  const candidates = existsSync(folder) ? readdirSync(folder).filter((name) => /\.(m?js|ts)$/.test(name)) : []
  const best = candidates.sort((a, b) => levenshtein(a, wanted) - levenshtein(b, wanted))[0]
  if (!best || levenshtein(best, wanted) > 3) return false
  const replacement = specifier.slice(0, specifier.length - wanted.length) + best
  return editFile(location.file, (text) => text.replaceAll(`'${specifier}'`, `'${replacement}'`))
}

function repairFromAnswerKey(location) {
  const key = JSON.parse(readFileSync(join(here, 'repairs.json'), 'utf8'))
  let changed = false
  for (const repair of key) {
    if (repair.pattern !== failure.pattern || !location.file.endsWith(repair.failingFile)) continue
    changed = editFile(repair.file, (text) => text.replace(repair.replace, repair.with)) || changed
  }
  return changed
}

const repairs = {
  'type-error': repairTypeError,
  'import-not-found': repairMissingImport,
  'test-failure': repairFromAnswerKey,
}
const repair = repairs[failure.pattern]
let changed = false
for (const location of failure.locations ?? []) {
  if (!repair) break
  const normalised = { ...location, file: relative(root, resolve(root, location.file.replace(/^file:\/\//, ''))) }
  if (repair(normalised)) {
    changed = true
    break // one repair per iteration, like a focused agent
  }
}
report(changed ? 1 : 0)
if (!changed) {
  console.log(`BLOCKED: the scripted agent has no repair for ${failure.pattern ?? 'this failure'} in ${failure.check}`)
  process.exit(3)
}
