/**
 * GitHub's size limits and how reports are trimmed to fit them, always with a pointer to the audit
 * trail where nothing is trimmed. Pure.
 */

/** A step's job summary may hold 1 MiB. */
export const SUMMARY_MAX_BYTES = 1024 * 1024
/** An issue or pull request comment may hold 65,536 characters. */
export const COMMENT_MAX_CHARS = 65_536

/** The most table rows, failing-output sections and listed locations a report shows. */
export const REPORT_CAPS = {
  tableRows: 200,
  outputSections: 20,
  overflowLocations: 100,
  triedEntries: 20,
  gates: 50,
  failedLegLinks: 10,
}

const encoder = new TextEncoder()

/** Bytes of `text` in UTF-8 (what the summary limit counts). */
export function utf8Length(text: string): number {
  // Fast path: every UTF-16 unit is at most 3 UTF-8 bytes, so short texts need no encoding.
  if (text.length * 3 <= SUMMARY_MAX_BYTES / 4) return encoder.encode(text).length
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit < 0x80) bytes += 1
    else if (unit < 0x800) bytes += 2
    else if (unit >= 0xd800 && unit <= 0xdbff) {
      bytes += 4
      i++
    } else bytes += 3
  }
  return bytes
}

/** The line that marks trimmed output and says where the rest is. */
export function trimmedMarker(lines: number, chars: number, where: string): string {
  return `… ${lines} line${lines === 1 ? '' : 's'} (${chars} characters) trimmed; the full output is in ${where} …`
}

/**
 * Keeps the head and the tail of `text` (a third and two thirds of `maxChars`, cut at line breaks
 * where possible), with a marker saying how much was dropped and where to find it. The tail gets more
 * room because failures are usually reported last.
 */
export function trimOutput(text: string, maxChars: number, where = 'the audit trail'): string {
  if (text.length <= maxChars) return text
  if (maxChars <= 0) return trimmedMarker(countLines(text), text.length, where)
  const headBudget = Math.floor(maxChars / 3)
  const tailBudget = maxChars - headBudget
  let head = text.slice(0, headBudget)
  const headBreak = head.lastIndexOf('\n')
  if (headBreak > headBudget / 2) head = head.slice(0, headBreak)
  let tail = text.slice(text.length - tailBudget)
  const tailBreak = tail.indexOf('\n')
  if (tailBreak !== -1 && tailBreak < tailBudget / 2) tail = tail.slice(tailBreak + 1)
  const dropped = text.slice(head.length, text.length - tail.length)
  return `${head}\n${trimmedMarker(countLines(dropped), dropped.length, where)}\n${tail}`
}

function countLines(text: string): number {
  let lines = 1
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++
  return lines
}

/**
 * Renders with ever smaller budgets until the result fits `limit` (as `measure` counts it). `render`
 * receives a per-output character budget; a budget of 0 asks for outputs left out. As a last resort
 * the text is cut at a line break and a note says where the full report is.
 */
export function fitToLimit(
  render: (outputBudget: number) => string,
  measure: (text: string) => number,
  limit: number,
  initialBudget: number,
  where: string,
): string {
  let budget = initialBudget
  for (let attempt = 0; attempt < 8; attempt++) {
    const text = render(budget)
    const size = measure(text)
    if (size <= limit) return text
    if (budget === 0) return hardCut(text, measure, limit, where)
    const next = Math.floor(budget * (limit / size) * 0.85)
    budget = next < 200 ? 0 : next
  }
  return hardCut(render(0), measure, limit, where)
}

function hardCut(text: string, measure: (text: string) => number, limit: number, where: string): string {
  const note = `\n\n> [!NOTE]\n> This report was cut to fit GitHub's size limit; the full report is in ${where}.\n`
  const room = limit - measure(note)
  // Characters are at most 4 bytes, so cutting at room/4 characters is safe for both measures; widen
  // while it still fits.
  let cut = Math.max(0, Math.floor(room / 4))
  let step = Math.max(1, Math.floor((text.length - cut) / 2))
  while (step >= 1 && cut < text.length) {
    if (measure(text.slice(0, cut + step)) <= room) cut += step
    else step = Math.floor(step / 2)
  }
  let head = text.slice(0, cut)
  const lineBreak = head.lastIndexOf('\n')
  if (lineBreak > 0) head = head.slice(0, lineBreak)
  return head + note
}
