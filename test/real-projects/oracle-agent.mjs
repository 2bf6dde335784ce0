#!/usr/bin/env node
/**
 * The strict oracle agent of the real-project runs: a stand-in for a coding agent that knows the right
 * code but only where the loop points it. It reads the loop's context (LOOP_CONTEXT_FILE, the JSON twin of
 * LOOP_PROMPT_FILE) and restores from the pristine copy (ORACLE_PRISTINE) only what that context names:
 *
 * - a location with a line, or a code-context snippet, names a range of lines of a file: only the changes
 *   (diff hunks against the pristine file) that touch that range are restored; a bare location line is
 *   widened by ORACLE_RADIUS lines (10), as an agent reads a little around the line it is sent to;
 * - a location without a line names the whole file (an agent sent to a file reads all of it).
 *
 * Nothing else: it never reads the defect list, never searches, never opens a file the context does not
 * name. What it restored and why goes to stdout and, as JSON lines, to ORACLE_LOG. It exits 0 even when it
 * could restore nothing (the checks judge the result), as an agent that tried and failed would.
 */
import { execFileSync } from 'node:child_process'
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, isAbsolute, join, normalize, relative } from 'node:path'

const root = process.cwd()
const pristine = process.env.ORACLE_PRISTINE
const contextFile = process.env.LOOP_CONTEXT_FILE
const logFile = process.env.ORACLE_LOG
const radius = Number(process.env.ORACLE_RADIUS ?? 10)

if (!pristine || !contextFile) {
  console.error('oracle-agent: ORACLE_PRISTINE and LOOP_CONTEXT_FILE must be set')
  process.exit(2)
}

const context = JSON.parse(readFileSync(contextFile, 'utf8'))

/** A path the context names, as a path relative to the repository root, or null if it is outside. */
function repoPath(file) {
  if (typeof file !== 'string' || file.length === 0) return null
  const cleaned = file.replace(/^\.\//, '').replace(/^a\/|^b\//, '')
  const absolute = isAbsolute(cleaned) ? cleaned : join(root, cleaned)
  const inside = relative(root, absolute)
  if (inside.startsWith('..') || isAbsolute(inside)) return null
  return normalize(inside)
}

/** What the context names: per file, the line ranges it shows, or `whole` when a location has no line. */
const named = new Map()
function name(file, range, why) {
  const path = repoPath(file)
  if (!path) return
  const entry = named.get(path) ?? { whole: false, ranges: [], why: [] }
  if (range) entry.ranges.push(range)
  else entry.whole = true
  entry.why.push(why)
  named.set(path, entry)
}
const failures = [...(context.failure ? [context.failure] : []), ...(context.failures ?? [])]
for (const failure of failures) {
  for (const location of failure.locations ?? []) {
    const line = Number(location.line)
    if (Number.isInteger(line) && line > 0)
      name(location.file, [Math.max(1, line - radius), line + radius], `location of ${failure.check}`)
    else name(location.file, null, `location of ${failure.check} (no line: the whole file)`)
  }
}
for (const snippet of context.codeContext ?? []) {
  name(snippet.file, [snippet.startLine, snippet.endLine], 'code context')
}

/** The hunks of `git diff` from the pristine file to the current one, with their line ranges on both sides. */
function hunks(pristineFile, currentFile) {
  let diff = ''
  try {
    execFileSync('git', ['diff', '--no-index', '--no-color', '-U0', pristineFile, currentFile], { encoding: 'utf8' })
    return []
  } catch (error) {
    diff = String(error.stdout ?? '')
  }
  const result = []
  for (const match of diff.matchAll(/^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/gm)) {
    result.push({
      oldStart: Number(match[1]),
      oldCount: match[2] === undefined ? 1 : Number(match[2]),
      newStart: Number(match[3]),
      newCount: match[4] === undefined ? 1 : Number(match[4]),
    })
  }
  return result
}

function overlaps(hunk, ranges) {
  // A pure deletion (newCount 0) sits between newStart and newStart + 1.
  const first = hunk.newCount === 0 ? hunk.newStart : hunk.newStart
  const last = hunk.newCount === 0 ? hunk.newStart + 1 : hunk.newStart + hunk.newCount - 1
  return ranges.some(([start, end]) => first <= end && last >= start)
}

const log = []
for (const [path, entry] of named) {
  const source = join(pristine, path)
  const target = join(root, path)
  if (!existsSync(source)) {
    log.push({ file: path, restored: 'nothing', why: entry.why, note: 'not in the pristine copy' })
    continue
  }
  if (!existsSync(target) || entry.whole) {
    const before = existsSync(target) ? readFileSync(target, 'utf8') : null
    const after = readFileSync(source, 'utf8')
    if (before === after) {
      log.push({ file: path, restored: 'nothing', why: entry.why, note: 'already as the pristine copy' })
      continue
    }
    mkdirSync(dirname(target), { recursive: true })
    writeFileSync(target, after)
    log.push({ file: path, restored: 'whole file', why: entry.why })
    continue
  }
  const all = hunks(source, target)
  const chosen = all.filter((hunk) => overlaps(hunk, entry.ranges))
  if (chosen.length === 0) {
    log.push({
      file: path,
      restored: 'nothing',
      why: entry.why,
      ranges: entry.ranges,
      note: all.length === 0 ? 'already as the pristine copy' : `${all.length} change(s) outside the named lines`,
    })
    continue
  }
  const oldLines = readFileSync(source, 'utf8').split('\n')
  const newLines = readFileSync(target, 'utf8').split('\n')
  // Bottom-up, so the line numbers of the hunks still to apply stay valid.
  for (const hunk of [...chosen].sort((a, b) => b.newStart - a.newStart)) {
    const replacement = oldLines.slice(hunk.oldStart - 1, hunk.oldStart - 1 + hunk.oldCount)
    const at = hunk.newCount === 0 ? hunk.newStart : hunk.newStart - 1
    newLines.splice(at, hunk.newCount, ...replacement)
  }
  writeFileSync(target, newLines.join('\n'))
  log.push({
    file: path,
    restored: chosen.map((h) => `lines ${h.newStart}-${h.newStart + Math.max(0, h.newCount - 1)}`).join(', '),
    why: entry.why,
    ranges: entry.ranges,
    left: all.length - chosen.length,
  })
}

const record = {
  iteration: context.iteration,
  strategy: context.strategy,
  failing: failures.map((f) => f.check).filter((c, i, all) => all.indexOf(c) === i),
  named: [...named.keys()],
  actions: log,
}
for (const action of log) {
  console.log(
    `oracle: ${action.file}: restored ${action.restored}${action.note ? ` (${action.note})` : ''} · named by ${[...new Set(action.why)].join(', ')}`,
  )
}
if (named.size === 0) console.log('oracle: the context names no file; nothing restored')
if (logFile) appendFileSync(logFile, `${JSON.stringify(record)}\n`)
