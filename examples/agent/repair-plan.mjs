// What the scripted agent (agent.mjs) and the scripted model behind the real agent CLIs
// (test/agents/model-server) know how to repair, as plans: which file, which text becomes which.
// The scripted agent applies a plan itself; the scripted model hands it to the real CLI as that
// CLI's own edit tool call, and the CLI applies it. Nothing in src/ knows about this file.
import { readFileSync } from 'node:fs'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))

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

/** A JSDoc `@type {B}` over a value of type A: retype it as A. */
function planTypeError(location, project) {
  const match = /Type '([^']+)' is not assignable to type '([^']+)'/.exec(location.message ?? '')
  const text = project.read(location.file)
  if (!match || !location.line || text === null) return null
  const [, actual, declared] = match
  const lines = text.split('\n')
  for (let i = location.line - 2; i >= Math.max(0, location.line - 4); i--) {
    const line = lines[i]
    if (line?.includes(`@type {${declared}}`)) {
      return { file: location.file, old: line, new: line.replace(`@type {${declared}}`, `@type {${actual}}`) }
    }
  }
  return null
}

/** A relative import of a file that is not there: point it at the closest existing name. */
function planMissingImport(location, project) {
  const match = /Cannot find module '(\.{1,2}\/[^']+)'/.exec(location.message ?? '')
  if (!match) return null
  const specifier = match[1]
  const folder = relative(project.root, dirname(resolve(project.root, location.file, '..', specifier)))
  const wanted = basename(specifier)
  const candidates = project.list(folder).filter((name) => /\.(m?js|ts)$/.test(name))
  const best = candidates.sort((a, b) => levenshtein(a, wanted) - levenshtein(b, wanted))[0]
  if (!best || levenshtein(best, wanted) > 3) return null
  const replacement = specifier.slice(0, specifier.length - wanted.length) + best
  return { file: location.file, old: `'${specifier}'`, new: `'${replacement}'` }
}

/** A failing test the answer key (repairs.json) knows. */
function planFromAnswerKey(location, project, pattern) {
  const key = JSON.parse(readFileSync(join(here, 'repairs.json'), 'utf8'))
  for (const repair of key) {
    if (repair.pattern !== pattern || !location.file.endsWith(repair.failingFile)) continue
    const text = project.read(repair.file)
    if (text?.includes(repair.replace)) return { file: repair.file, old: repair.replace, new: repair.with }
  }
  return null
}

const planners = {
  'type-error': planTypeError,
  'import-not-found': planMissingImport,
  'test-failure': planFromAnswerKey,
}

/**
 * One repair for a failure (`{ pattern, locations: [{ file, line, message }] }`), the way a focused
 * agent makes one change per iteration: `{ file, old, new }` (an exact text to replace), or null.
 * `project` reads the workspace: `{ root, read(file) -> text | null, list(folder) -> names }`.
 */
export function planRepair(failure, project) {
  const planner = planners[failure?.pattern]
  if (!planner) return null
  for (const location of failure.locations ?? []) {
    const file = relative(project.root, resolve(project.root, String(location.file).replace(/^file:\/\//, '')))
    const plan = planner({ ...location, file }, project, failure.pattern)
    if (plan) return plan
  }
  return null
}

/**
 * The failure as the loop's prompt file describes it (its "What failed" section): the pattern in
 * backticks on the first line, then one `- file:line:col message` line per location.
 */
export function failureFromPrompt(prompt) {
  const section = /## What failed\n([\s\S]*?)(?:\n## |$)/.exec(prompt)?.[1]
  if (!section) return null
  const pattern = /failed: `([a-z0-9-]+)`/.exec(section)?.[1] ?? null
  const locations = []
  for (const match of section.matchAll(/^- ([^\s:]+):(\d+)(?::\d+)? (.*)$/gm)) {
    locations.push({ file: match[1], line: Number(match[2]), message: match[3] })
  }
  return { pattern, locations }
}
