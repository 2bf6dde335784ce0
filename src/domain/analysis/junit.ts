/**
 * A small, bounded JUnit XML reader: enough to take per-test verdicts for regression detection without a
 * dependency. It reads `<testcase>` elements (with their `classname` and `name`) and their `<failure>`,
 * `<error>` and `<skipped>` children; it ignores everything else.
 */

/** One test's verdict. `id` is `classname.name` (or `name` when there is no class name). */
export interface JUnitCase {
  id: string
  status: 'pass' | 'fail' | 'skipped'
}

/** At most this many test cases are read (a report larger than that is truncated, not rejected). */
export const MAX_JUNIT_CASES = 50_000

const TESTCASE = /<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase\s*>)/g
const ATTRIBUTE = /([A-Za-z_:][\w:.-]*)\s*=\s*("([^"]*)"|'([^']*)')/g

/** Parses JUnit XML into test verdicts, in document order; unparseable input gives `[]`. */
export function parseJUnit(xml: string): JUnitCase[] {
  const cases: JUnitCase[] = []
  for (const match of xml.matchAll(TESTCASE)) {
    const attributes = parseAttributes(match[1] ?? '')
    const name = attributes.get('name')
    if (name === undefined) continue
    const className = attributes.get('classname')
    const body = match[3] ?? ''
    const status = /<(failure|error)\b/.test(body) ? 'fail' : /<skipped\b/.test(body) ? 'skipped' : 'pass'
    cases.push({ id: className ? `${className}.${name}` : name, status })
    if (cases.length >= MAX_JUNIT_CASES) break
  }
  return cases
}

function parseAttributes(text: string): Map<string, string> {
  const attributes = new Map<string, string>()
  for (const match of text.matchAll(ATTRIBUTE)) {
    attributes.set(match[1] as string, decodeEntities(match[3] ?? match[4] ?? ''))
  }
  return attributes
}

function decodeEntities(text: string): string {
  return text.replace(/&(lt|gt|quot|apos|amp|#\d+|#x[0-9a-fA-F]+);/g, (entity, name: string) => {
    if (name === 'lt') return '<'
    if (name === 'gt') return '>'
    if (name === 'quot') return '"'
    if (name === 'apos') return "'"
    if (name === 'amp') return '&'
    const code = name.startsWith('#x') ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10)
    return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : entity
  })
}
