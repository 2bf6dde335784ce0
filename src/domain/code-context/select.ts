/**
 * What code the agent is shown for a failure, by attempt: each attempt on the same failure gets more
 * than the last and is told what was added. Attempt 1: the code around the failure's locations, the
 * import block for a missing import or name, the definitions of the names in the failing assertion or
 * test title. Attempt 2: also the modules the failing test imports (what it tests) and the changes
 * since the check last passed. Attempt 3 and later: wider windows, whole modules, a larger budget. The
 * same lines are never sent twice; what the size bound cut is said. Pure.
 */
import { isTestFile } from '../analysis/frames.js'
import type { Strategy } from '../stages.js'
import type { Location } from '../state.js'
import { contextWindows } from '../work-context.js'
import { definitionEnd, definitionsIn, dirOf, importBlock, importsIn, resolveImport } from './symbols.js'

export interface ContextSnippet {
  file: string
  startLine: number
  endLine: number
  text: string
  /** Why it is shown: 'around the failure', 'definition of `name`', … */
  why: string
}

/** The changes since the check last passed (or since the loop started), as a unified diff. */
export interface ChangesSince {
  /** Which point the diff starts from, in words. */
  since: string
  files: string[]
  diff: string
}

export interface FailureView {
  check: string
  pattern: string | null
  locations: Location[]
  excerpt: string
}

export interface ContextRequest {
  failure: FailureView
  /** The failing tests' names (JUnit or the runner's lines), when known. */
  failingTests: readonly string[]
  /** 1 for the first attempt on a failure; see `contextLevel`. */
  level: number
  /** The project's indexable files (relative paths) and the texts read of them. */
  files: ReadonlySet<string>
  texts: ReadonlyMap<string, string>
  changes: ChangesSince | null
}

export interface ContextSelection {
  level: number
  snippets: ContextSnippet[]
  changes: ChangesSince | null
  /** What this attempt shows that the previous one did not. */
  added: string[]
  /** What the size bound left out. */
  cut: string[]
}

/** Characters of code and diff shown per level. */
const BUDGET = [0, 16_000, 40_000, 64_000] as const
const MAX_LEVEL = 3
const MISSING_NAME =
  /Cannot find (?:name|module)|is not defined|\bundefined: |NameError|ImportError|ModuleNotFoundError|cannot find symbol|has no exported member|not found in this scope|unresolved import|Cannot use import|does not provide an export/

/**
 * The context level of an attempt: 1 for a stage's first attempt, then one more per retry on the same
 * failure (`consecutive` counts them), one more again for the `context_expand` strategy; at most 3.
 */
export function contextLevel(strategy: Strategy | null, consecutive: number): number {
  if (strategy === null) return 1
  const level = Math.max(1, consecutive) + 1 + (strategy === 'context_expand' ? 1 : 0)
  return Math.min(MAX_LEVEL, level)
}

/** The code for this attempt, with what it adds to the previous attempt's. */
export function selectContext(request: ContextRequest): ContextSelection {
  const level = Math.max(1, Math.min(MAX_LEVEL, request.level))
  const current = selectAt(request, level)
  if (level === 1) return current
  const previous = selectAt(request, level - 1)
  const before = new Set(previous.snippets.map(snippetKey))
  const added = current.snippets.filter((s) => !before.has(snippetKey(s))).map(describe)
  if (current.changes && !previous.changes) {
    const { since, files } = current.changes
    added.push(files.length > 0 ? `the changes ${since} (${files.join(', ')})` : `the changes ${since}: none`)
  }
  return { ...current, added }
}

function selectAt(request: ContextRequest, level: number): ContextSelection {
  const shown = new Shown(BUDGET[level] ?? BUDGET[MAX_LEVEL])
  const { failure, texts } = request
  const text = (file: string): string[] | null => texts.get(file)?.split('\n') ?? null

  for (const window of contextWindows(failure.locations, level >= 3 ? 100 : 50, level >= 3 ? 8 : 4)) {
    const lines = text(window.file)
    if (lines) shown.add(window.file, lines, window.startLine, window.endLine, 'around the failure')
  }
  if (isMissingName(failure)) {
    const files = [...new Set(failure.locations.map((l) => l.file))].slice(0, 2)
    for (const file of files) {
      const lines = text(file)
      const block = lines ? importBlock(lines) : null
      if (lines && block) shown.add(file, lines, block.startLine, block.endLine, 'its import block')
    }
  }
  const definitions = definitionsFor(namesInFailure(request), request, level === 1 ? 3 : level === 2 ? 8 : 12)
  for (const definition of definitions) {
    const lines = text(definition.file) as string[]
    const end = definitionEnd(lines, definition.line, level >= 3 ? 120 : 60)
    shown.add(definition.file, lines, definition.line, end, `definition of \`${definition.name}\``)
  }
  let changes: ChangesSince | null = null
  if (level >= 2) {
    for (const { module, test } of testedModules(request).slice(0, 3)) {
      const lines = text(module) as string[]
      shown.add(
        module,
        lines,
        1,
        Math.min(lines.length, level >= 3 ? 400 : 150),
        `imported by the failing test ${test}`,
      )
    }
    if (request.changes) changes = shown.addDiff(request.changes, level >= 3 ? 24_000 : 12_000)
  }
  return { level, snippets: shown.snippets, changes, added: [], cut: shown.cut }
}

/** The snippets shown so far, the lines they cover per file, the budget left, what was cut. */
class Shown {
  readonly snippets: ContextSnippet[] = []
  readonly cut: string[] = []
  private readonly covered = new Map<string, [number, number][]>()

  constructor(private left: number) {}

  add(file: string, lines: readonly string[], startLine: number, endLine: number, why: string): void {
    const end = Math.min(endLine, lines.length)
    for (const [from, to] of this.uncovered(file, Math.max(1, startLine), end)) {
      let last = to
      let body = lines.slice(from - 1, last).join('\n')
      while (body.length > this.left && last > from) {
        last = from + Math.floor((last - from) / 2)
        body = lines.slice(from - 1, last).join('\n')
      }
      if (body.length > this.left || (last < to && last - from < 10)) {
        this.cut.push(`${file} lines ${from}-${to} (${why}): left out, over the prompt's size bound`)
        continue
      }
      if (last < to) this.cut.push(`${file} lines ${last + 1}-${to} (${why}): left out, over the prompt's size bound`)
      this.left -= body.length
      this.snippets.push({ file, startLine: from, endLine: last, text: body, why })
      const ranges = this.covered.get(file) ?? []
      ranges.push([from, last])
      this.covered.set(file, ranges)
    }
  }

  addDiff(changes: ChangesSince, max: number): ChangesSince {
    const room = Math.min(max, this.left)
    if (changes.diff.length <= room) {
      this.left -= changes.diff.length
      return changes
    }
    const kept = changes.diff.slice(0, Math.max(0, room))
    const cutAt = kept.lastIndexOf('\n')
    const diff = cutAt > 0 ? kept.slice(0, cutAt + 1) : ''
    this.left -= diff.length
    this.cut.push(`the changes ${changes.since}: ${changes.diff.length - diff.length} characters of the diff left out`)
    return { ...changes, diff }
  }

  /** The parts of [start, end] no snippet of `file` shows yet. */
  private uncovered(file: string, start: number, end: number): [number, number][] {
    let parts: [number, number][] = start <= end ? [[start, end]] : []
    for (const [from, to] of this.covered.get(file) ?? []) {
      parts = parts.flatMap(([a, b]): [number, number][] => {
        if (to < a || from > b) return [[a, b]]
        const pieces: [number, number][] = []
        if (a < from) pieces.push([a, from - 1])
        if (to < b) pieces.push([to + 1, b])
        return pieces
      })
    }
    return parts
  }
}

function isMissingName(failure: FailureView): boolean {
  if (failure.pattern === 'import-not-found') return true
  return MISSING_NAME.test(failure.excerpt) || failure.locations.some((l) => MISSING_NAME.test(l.message ?? ''))
}

const STOP_WORDS = new Set(
  (
    'the and for with from that this not are was but has have into when then than its return const let var new ' +
    'function def func class self this true false null none undefined await async expect assert equal equals ' +
    'strictEqual deepEqual deepStrictEqual toBe toEqual toStrictEqual toThrow toMatch toContain toHaveBeenCalled ' +
    'describe test tests should want got error errorf fatalf fatal expected received actual value values ' +
    'string number object import export require module default length'
  )
    .toLowerCase()
    .split(/\s+/),
)

/**
 * Names worth looking up: identifiers in the failing assertion (the test file's lines at the failure's
 * locations and the excerpt's assertion lines), in the failing tests' titles (`test_` and `Test`
 * prefixes dropped), and the names a missing-name message quotes.
 */
export function namesInFailure(request: Pick<ContextRequest, 'failure' | 'failingTests' | 'texts'>): string[] {
  const sources: string[] = []
  for (const location of request.failure.locations) {
    if (!location.line) continue
    const line = request.texts.get(location.file)?.split('\n')[location.line - 1]
    if (line !== undefined) sources.push(line)
    if (location.message) sources.push(location.message)
  }
  for (const line of request.failure.excerpt.split('\n').slice(0, 80)) {
    if (/assert|expect|want|got|Error|where|!==|===|==/.test(line)) sources.push(line)
  }
  const titles = request.failingTests.slice(0, 20).map((title) => (title.split(/::|›|>|\//).pop() ?? title).trim())
  for (const name of titles) sources.push(name.replace(/^test_?/i, '').replace(/^Test(?=[A-Z])/, ''))
  // The failing test's own body: a test that reports through a shared helper (Go's table tests, a
  // custom assert) names the code it exercises only there.
  sources.push(...failingTestBodies(titles, request.texts))
  const names: string[] = []
  for (const source of sources) {
    for (const [word] of source.matchAll(/[A-Za-z_$][\w$]*/g)) {
      if (word.length < 3 || STOP_WORDS.has(word.toLowerCase()) || names.includes(word)) continue
      names.push(word)
    }
  }
  return names
}

/** The first lines of each failing test's definition (`func TestX`, `def test_x`), found in test files. */
function failingTestBodies(titles: readonly string[], texts: ReadonlyMap<string, string>): string[] {
  const wanted = new Set(titles.filter((title) => /^[A-Za-z_$][\w$]*$/.test(title)))
  if (wanted.size === 0) return []
  const bodies: string[] = []
  for (const [file, text] of texts) {
    if (!isTestFile(file)) continue
    const lines = text.split('\n')
    for (const definition of definitionsIn(file, text)) {
      if (!wanted.has(definition.name)) continue
      bodies.push(...lines.slice(definition.line, definitionEnd(lines, definition.line, 30)))
      if (bodies.length > 200) return bodies
    }
  }
  return bodies
}

interface FoundDefinition {
  name: string
  file: string
  line: number
}

/** Where the names are defined in the project's source (test files left out), first found first. */
function definitionsFor(names: readonly string[], request: ContextRequest, max: number): FoundDefinition[] {
  if (names.length === 0) return []
  const wanted = new Set(names)
  const byName = new Map<string, FoundDefinition[]>()
  for (const [file, text] of request.texts) {
    if (isTestFile(file)) continue
    for (const definition of definitionsIn(file, text)) {
      if (!wanted.has(definition.name)) continue
      const list = byName.get(definition.name) ?? []
      list.push(definition)
      byName.set(definition.name, list)
    }
  }
  const found: FoundDefinition[] = []
  for (const name of names) {
    for (const definition of (byName.get(name) ?? []).slice(0, 2)) found.push(definition)
    if (found.length >= max) break
  }
  return found.slice(0, max)
}

/** The project modules the failing tests import: relative imports resolved, a Go test's package files. */
function testedModules(request: ContextRequest): { module: string; test: string }[] {
  const tests = new Set<string>()
  for (const location of request.failure.locations) if (isTestFile(location.file)) tests.add(location.file)
  for (const name of request.failingTests) {
    const file = /^([^\s:]+\.\w+)::/.exec(name)?.[1]
    if (file && request.files.has(file)) tests.add(file)
  }
  const modules: { module: string; test: string }[] = []
  const seen = new Set<string>()
  const push = (module: string, test: string): void => {
    if (seen.has(module) || isTestFile(module) || !request.texts.has(module)) return
    seen.add(module)
    modules.push({ module, test })
  }
  for (const test of tests) {
    const text = request.texts.get(test)
    if (text === undefined) continue
    if (test.endsWith('_test.go')) {
      const dir = dirOf(test)
      for (const file of request.files) if (file.endsWith('.go') && dirOf(file) === dir) push(file, test)
      continue
    }
    for (const spec of importsIn(test, text)) {
      const module = resolveImport(test, spec, request.files)
      if (module) push(module, test)
    }
  }
  return modules
}

function snippetKey(snippet: ContextSnippet): string {
  return `${snippet.why}|${snippet.file}:${snippet.startLine}-${snippet.endLine}`
}

function describe(snippet: ContextSnippet): string {
  return `${snippet.why}: \`${snippet.file}\` lines ${snippet.startLine}-${snippet.endLine}`
}
