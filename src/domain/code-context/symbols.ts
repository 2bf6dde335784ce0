/**
 * A cheap look at a project's source, by regular expressions rather than parsers: which names a file
 * defines, which modules it imports, where its import block ends. Good enough to put the code under
 * test in front of an agent; it never has to be complete. Pure.
 */

/** Folders never indexed: dependencies, build output, the loop's own files. */
const SKIPPED_DIR =
  /(?:^|\/)(?:node_modules|\.git|\.loop|dist|build|out|vendor|target|coverage|__pycache__|\.venv|venv|\.tox|\.next)\//
const SOURCE_EXT = /\.(?:[cm]?[jt]sx?|py|go|rs|java|kt|rb|cs|php|swift|c|h|cc|cpp|hpp)$/

/** Whether a project file (relative path) is source worth indexing. */
export function isIndexable(path: string): boolean {
  return SOURCE_EXT.test(path) && !SKIPPED_DIR.test(path) && !path.endsWith('.d.ts') && !path.endsWith('.min.js')
}

export interface Definition {
  name: string
  file: string
  /** 1-based. */
  line: number
}

/** `export function name`, `const name =`, `def name`, `func (r T) Name`, `class Name`, `fn name`, `type Name` … */
const DEFINITION =
  /^\s*(?:export\s+)?(?:default\s+)?(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:(?:function\*?|def|fn|class|interface|enum|struct|trait|type)\s+([A-Za-z_$][\w$]*)|(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=|func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*))/

/** The names a file defines at any depth (methods included), in file order. */
export function definitionsIn(file: string, text: string): Definition[] {
  const found: Definition[] = []
  const lines = text.split('\n')
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string
    if (line.length > 400) continue
    const match = DEFINITION.exec(line)
    const name = match?.[1] ?? match?.[2] ?? match?.[3]
    if (name) found.push({ name, file, line: index + 1 })
  }
  return found
}

/**
 * Where a definition starting at `line` (1-based) ends: the closing brace that balances its first
 * opening one, or for an indented language the last line indented deeper than the definition; at most
 * `maxLines` lines.
 */
export function definitionEnd(lines: readonly string[], line: number, maxLines = 60): number {
  const start = line - 1
  const last = Math.min(lines.length, start + maxLines) - 1
  const header = lines[start] ?? ''
  if (/^\s*(?:async\s+)?(?:def|class)\s/.test(header) && /:\s*(?:#.*)?$/.test(header)) {
    const indent = header.length - header.trimStart().length
    let end = start
    for (let i = start + 1; i <= last; i++) {
      const text = lines[i] as string
      if (text.trim() === '') continue
      if (text.length - text.trimStart().length <= indent) break
      end = i
    }
    return end + 1
  }
  let depth = 0
  let opened = false
  for (let i = start; i <= last; i++) {
    for (const char of stripStrings(lines[i] as string)) {
      if (char === '{') {
        depth++
        opened = true
      } else if (char === '}') depth--
    }
    if (opened && depth <= 0) return i + 1
    // A one-line definition: `const rate = 0.2`.
    if (!opened && i === start && !/[{(=,[]\s*$/.test(lines[i] as string)) return i + 1
  }
  return last + 1
}

function stripStrings(line: string): string {
  return line.replace(/(["'`])(?:\\.|(?!\1).)*\1/g, '""').replace(/\/\/.*$/, '')
}

/** The module specifiers a file imports (JS/TS `import`/`require`, Python `import`/`from … import`). */
export function importsIn(file: string, text: string): string[] {
  const found: string[] = []
  const head = text.split('\n').slice(0, 300)
  if (/\.py$/.test(file)) {
    for (const line of head) {
      const from = /^\s*from\s+([\w.]+)\s+import\b/.exec(line)
      const plain = /^\s*import\s+([\w.]+)/.exec(line)
      const spec = from?.[1] ?? plain?.[1]
      if (spec) found.push(spec)
    }
  } else {
    const joined = head.join('\n')
    for (const match of joined.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]([^'"\n]+)['"]/g)) {
      if (match[1]) found.push(match[1])
    }
  }
  return [...new Set(found)]
}

/**
 * The project file an import names, among `files` (relative paths): relative JS/TS specifiers (with
 * the `.js`-for-`.ts` convention and `index` files), dotted Python modules (also under `src/`). Package
 * imports resolve to nothing.
 */
export function resolveImport(fromFile: string, spec: string, files: ReadonlySet<string>): string | null {
  const candidates: string[] = []
  if (/\.py$/.test(fromFile)) {
    const dots = /^\.+/.exec(spec)?.[0].length ?? 0
    const rest = spec.slice(dots).replace(/\./g, '/')
    const bases =
      dots > 0 ? [joinPath(dirOf(fromFile), `${'../'.repeat(dots - 1)}${rest}`)] : [rest, `src/${rest}`, `lib/${rest}`]
    for (const base of bases) candidates.push(`${base}.py`, `${base}/__init__.py`)
  } else {
    if (!spec.startsWith('.')) return null
    const base = joinPath(dirOf(fromFile), spec)
    const stem = base.replace(/\.[cm]?[jt]sx?$/, '')
    candidates.push(base)
    for (const ext of ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs']) candidates.push(`${stem}${ext}`)
    for (const ext of ['.ts', '.tsx', '.js', '.mjs']) candidates.push(`${base}/index${ext}`)
  }
  return candidates.find((candidate) => files.has(candidate)) ?? null
}

/**
 * The lines (1-based, inclusive) of a file's import block: from the top to its last import statement
 * among the first 200 lines (a multi-line import included); null when it has none.
 */
export function importBlock(lines: readonly string[]): { startLine: number; endLine: number } | null {
  let last = -1
  // The line that closes a multi-line import: Go's `)`, or JS's `} from '…'`.
  let closing: RegExp | null = null
  for (let i = 0; i < Math.min(lines.length, 200); i++) {
    const line = lines[i] as string
    if (closing) {
      last = i
      if (closing.test(line)) closing = null
      continue
    }
    if (
      /^\s*(?:import\b|from\s+[\w.]+\s+import\b|export\s+(?:\*|\{[^}]*\})\s*from\b|use\s+[\w:]+|#include\b|(?:const|let|var)\s+.*=\s*require\s*\()/.test(
        line,
      )
    ) {
      last = i
      if (/^\s*import\s*\(\s*$/.test(line)) closing = /^\s*\)\s*$/
      else if (/\{[^}]*$/.test(line)) closing = /\bfrom\s*['"]/
    }
  }
  return last < 0 ? null : { startLine: 1, endLine: last + 1 }
}

/** The directory part of a relative path ('' at the top). */
export function dirOf(path: string): string {
  const slash = path.lastIndexOf('/')
  return slash < 0 ? '' : path.slice(0, slash)
}

/** `dir` joined with a relative path, `.` and `..` resolved; null-safe at the top (extra `..` dropped). */
export function joinPath(dir: string, relative: string): string {
  const parts = dir === '' ? [] : dir.split('/')
  for (const part of relative.split('/')) {
    if (part === '' || part === '.') continue
    if (part === '..') parts.pop()
    else parts.push(part)
  }
  return parts.join('/')
}
