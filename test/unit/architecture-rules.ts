/**
 * The layer walls of `src/`, as a pure function over a map of files (repository-relative path → text),
 * so the rules can be tested on made-up trees and then applied to the real one.
 *
 * - `src/domain/` imports only `src/domain/`, the pure Node built-ins and the pure packages listed
 *   below: the domain decides, it never reads the world nor knows how it is configured or stored.
 * - `src/app/` reaches the world through `src/ports/`: no import from `src/adapters/`, a composition
 *   root, or a Node built-in that does I/O.
 * - `src/ports/` describes what the app needs, not how it is done: no import from `src/adapters/`,
 *   `src/app/` nor a composition root.
 * - No source file is longer than `MAX_LINES`.
 */
import { isBuiltin } from 'node:module'
import { dirname, join, normalize } from 'node:path/posix'
import ts from 'typescript'

export const MAX_LINES = 450

/**
 * Node built-ins the domain may use: computation only, no I/O. `node:crypto` hashes text for the
 * failure-similarity fingerprints.
 */
export const DOMAIN_PURE_BUILTINS: readonly string[] = ['node:crypto']

/** Node built-ins the app may use: path arithmetic and hashing; files, processes and the network go through ports. */
export const APP_PURE_BUILTINS: readonly string[] = ['node:path', 'node:crypto']

/** npm packages the domain may use: pure libraries (schemas, a linear-time regex engine). */
export const DOMAIN_PURE_PACKAGES: readonly string[] = ['zod', 're2js']

/** The files that wire adapters to the app: the action's and the CLI's front doors. */
const COMPOSITION_ROOTS = ['src/main.ts', 'src/index.ts', 'src/cli.ts', 'src/cli-entry.ts', 'src/action/', 'src/cli/']

export type Layer = 'domain' | 'app' | 'ports' | 'adapters' | 'config' | 'composition root' | 'other'

export interface ImportRef {
  /** The specifier as written. */
  specifier: string
  /** 1-based line of the import. */
  line: number
  /** `import type`, `export type ... from` or a type position `import('x')`. */
  typeOnly: boolean
}

export interface Violation {
  file: string
  /** The specifier as written, or undefined for a rule about the file itself (its length). */
  specifier?: string
  rule: string
  message: string
}

export interface LengthReport {
  longest: Array<{ file: string; lines: number }>
  over400: number
}

export function layerOf(file: string): Layer {
  if (COMPOSITION_ROOTS.some((root) => (root.endsWith('/') ? file.startsWith(root) : file === root))) {
    return 'composition root'
  }
  for (const layer of ['domain', 'app', 'ports', 'adapters', 'config'] as const) {
    if (file.startsWith(`src/${layer}/`)) return layer
  }
  return 'other'
}

/** Every module specifier a TypeScript file names: static imports, re-exports, `import()` and `require`-style imports. */
export function importsOf(file: string, text: string): ImportRef[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const found: ImportRef[] = []
  const add = (literal: ts.Node, typeOnly: boolean) => {
    const specifier = ts.isStringLiteralLike(literal) ? literal.text : `<computed: ${literal.getText(source)}>`
    found.push({ specifier, line: source.getLineAndCharacterOfPosition(literal.getStart(source)).line + 1, typeOnly })
  }
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      add(node.moduleSpecifier, node.importClause?.isTypeOnly ?? false)
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      add(node.moduleSpecifier, node.isTypeOnly)
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly)
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments
      if (argument) add(argument, false)
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, true)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** Where a relative specifier points, as a path of `files` when one matches (`.js` written for `.ts`, folder index). */
export function resolveRelative(from: string, specifier: string, files: ReadonlySet<string>): string {
  const target = normalize(join(dirname(from), specifier))
  const candidates = [target.replace(/\.(m|c)?js$/, '.$1ts'), `${target}.ts`, `${target}/index.ts`, target]
  return candidates.find((candidate) => files.has(candidate)) ?? candidates[0]!
}

/** `zod` for `zod/v4`, `@actions/core` for `@actions/core/lib/x`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!
}

function lineCount(text: string): number {
  if (text.length === 0) return 0
  const lines = text.split('\n').length
  return text.endsWith('\n') ? lines - 1 : lines
}

/** The violations of the walls in `files` (repository-relative path → text); files outside `src/` are ignored. */
export function checkArchitecture(files: ReadonlyMap<string, string>): Violation[] {
  const paths = new Set(files.keys())
  const violations: Violation[] = []
  for (const [file, text] of files) {
    if (!file.startsWith('src/') || !/\.(m|c)?ts$/.test(file)) continue
    const lines = lineCount(text)
    if (lines > MAX_LINES) {
      const rule = `source files stay at ${MAX_LINES} lines or fewer`
      violations.push({ file, rule, message: `${file} has ${lines} lines, which breaks the rule: ${rule}` })
    }
    const layer = layerOf(file)
    for (const ref of importsOf(file, text)) {
      const broken = brokenRule(file, layer, ref, paths)
      if (!broken) continue
      const where = `${file}:${ref.line}`
      const kind = ref.typeOnly ? 'type-only import' : 'import'
      violations.push({
        file,
        specifier: ref.specifier,
        rule: broken.rule,
        message: `${where}: ${kind} '${ref.specifier}'${broken.detail ? ` (${broken.detail})` : ''} breaks the rule: ${broken.rule}`,
      })
    }
  }
  return violations
}

function brokenRule(
  file: string,
  layer: Layer,
  ref: ImportRef,
  paths: ReadonlySet<string>,
): { rule: string; detail?: string } | null {
  const { specifier } = ref
  if (specifier.startsWith('<computed:')) {
    return layer === 'domain' || layer === 'app' || layer === 'ports'
      ? { rule: `${layer} imports name their module literally, so the walls can be checked` }
      : null
  }
  const relative = specifier.startsWith('.')
  const target = relative ? resolveRelative(file, specifier, paths) : undefined
  const targetLayer = target ? layerOf(target) : undefined
  const detail = target ? `resolves to ${target}, ${targetLayer}` : undefined
  switch (layer) {
    case 'domain': {
      const rule = 'domain imports only domain, pure Node built-ins and pure packages'
      if (target) return target.startsWith('src/domain/') ? null : { rule, ...(detail ? { detail } : {}) }
      if (specifier.startsWith('node:') || isBuiltin(specifier)) {
        const name = specifier.startsWith('node:') ? specifier : `node:${specifier}`
        return DOMAIN_PURE_BUILTINS.includes(name)
          ? null
          : { rule, detail: `a Node built-in not among the pure ones: ${DOMAIN_PURE_BUILTINS.join(', ')}` }
      }
      return DOMAIN_PURE_PACKAGES.includes(packageName(specifier))
        ? null
        : { rule, detail: `a package not among the pure ones: ${DOMAIN_PURE_PACKAGES.join(', ')}` }
    }
    case 'app': {
      const rule = 'app reaches the world only through ports: no adapters, no composition root, no Node I/O'
      if (targetLayer === 'adapters' || targetLayer === 'composition root') return { rule, detail: detail! }
      if (!target && (specifier.startsWith('node:') || isBuiltin(specifier))) {
        const name = specifier.startsWith('node:') ? specifier : `node:${specifier}`
        return APP_PURE_BUILTINS.includes(name)
          ? null
          : { rule, detail: `a Node built-in not among the pure ones: ${APP_PURE_BUILTINS.join(', ')}` }
      }
      return null
    }
    case 'ports':
      if (targetLayer === 'adapters' || targetLayer === 'app' || targetLayer === 'composition root') {
        return { rule: 'ports import no adapters, no app and no composition root', detail: detail! }
      }
      return null
    default:
      return null
  }
}

/** The longest source files of `src/` and how many are over 400 lines, to watch growth in CI logs. */
export function lengthReport(files: ReadonlyMap<string, string>, top = 10): LengthReport {
  const counted = [...files]
    .filter(([file]) => file.startsWith('src/') && /\.(m|c)?ts$/.test(file))
    .map(([file, text]) => ({ file, lines: lineCount(text) }))
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file))
  return { longest: counted.slice(0, top), over400: counted.filter((entry) => entry.lines > 400).length }
}

export function formatLengthReport(report: LengthReport): string {
  const width = Math.max(...report.longest.map((entry) => String(entry.lines).length), 1)
  return [
    `The ${report.longest.length} longest files in src/ (limit ${MAX_LINES} lines):`,
    ...report.longest.map((entry) => `  ${String(entry.lines).padStart(width)}  ${entry.file}`),
    `Files over 400 lines: ${report.over400}`,
  ].join('\n')
}
