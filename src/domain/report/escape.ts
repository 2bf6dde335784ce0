/**
 * Escaping untrusted text (check output, agent messages, branch names) for Markdown that GitHub
 * renders. `core.summary` escapes nothing, so everything goes through here.
 */
import { neutraliseWorkflowCommands } from '../redact.js'

const ZWSP = '\u200b'

/** Escapes `&`, `<`, `>` and quotes for HTML (a `<summary>`, an attribute). */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

/** Breaks `@name` so quoting untrusted text never notifies anyone. */
export function neutraliseMentions(text: string): string {
  return text.replace(/@(?=[A-Za-z0-9])/g, `@${ZWSP}`)
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is removed
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g

/**
 * One line of untrusted text for inline Markdown (a table cell, a bullet): whitespace folded,
 * HTML-escaped, Markdown punctuation backslash-escaped (so `|` cannot split a table cell and a
 * backtick cannot open a code span), mentions broken, and at most `maxChars` long.
 */
export function inlineText(text: string, maxChars = 300): string {
  return escapeInline(oneLine(text, maxChars))
}

/** Control characters removed, whitespace folded, at most `maxChars` long. */
function oneLine(text: string, maxChars: number): string {
  const flat = text.replace(CONTROL, '').replace(/\s+/g, ' ').trim()
  return flat.length > maxChars ? `${flat.slice(0, maxChars - 1)}…` : flat
}

function escapeInline(flat: string): string {
  return neutraliseMentions(escapeHtml(flat).replace(/([\\`*_[\]|~!#])/g, '\\$1'))
}

// A code span the text itself wrote: no backtick, no line break and no `|` (which splits a table cell
// even inside a code span), at most 200 characters.
const CODE_SPAN = /`([^`|\n]{1,200})`/g

/**
 * One line of text that may hold code spans of its own (`/loop resume`, `loop/blocked`): the spans stay
 * code spans, and everything between them is escaped as `inlineText` does. A code span is inert in
 * GitHub's Markdown (no HTML, no link, no mention), so untrusted text gains nothing by writing one;
 * escaping its backticks again only shows them to the reader.
 */
export function markdownText(text: string, maxChars = 300): string {
  const flat = oneLine(text, maxChars)
  let out = ''
  let last = 0
  for (const match of flat.matchAll(CODE_SPAN)) {
    const body = match[1] as string
    // A span that starts or ends in a space would be trimmed by the renderer; leave it as text.
    if (body.trim() !== body) continue
    out += escapeInline(flat.slice(last, match.index))
    out += `\`${body}\``
    last = match.index + match[0].length
  }
  return out + escapeInline(flat.slice(last))
}

/** A code span for names from a safe alphabet (check ids, patterns, strategies); others get `inlineText`. */
export function code(name: string): string {
  return /^[A-Za-z0-9._:/@+-]+$/.test(name) && name.length <= 200 ? `\`${name}\`` : inlineText(name)
}

/**
 * A fenced code block that untrusted content cannot close: the fence is longer than any run of
 * backticks inside. Workflow commands and control characters are defused too, since the same text
 * may be echoed to the log.
 */
export function codeBlock(content: string, language = 'text'): string {
  const clean = neutraliseWorkflowCommands(content.replace(CONTROL, ''))
  let longest = 0
  for (const match of clean.matchAll(/`+/g)) longest = Math.max(longest, match[0].length)
  const fence = '`'.repeat(Math.max(3, longest + 1))
  return `${fence}${language}\n${clean.replace(/\n+$/, '')}\n${fence}`
}

/** A URL for a Markdown link target: only http(s), with parentheses and spaces encoded. */
export function safeUrl(url: string): string | null {
  if (!/^https?:\/\/[^\s]+$/i.test(url)) return null
  return url.replace(/\(/g, '%28').replace(/\)/g, '%29')
}

/** A Markdown link, or the escaped label alone when the URL is not a plain http(s) URL. */
export function link(label: string, url: string | undefined): string {
  const target = url ? safeUrl(url) : null
  return target ? `[${inlineText(label)}](${target})` : inlineText(label)
}
