/** The prompt's code sections: what this attempt adds, the code and why each piece is shown, the changes. Pure. */
import type { ChangesSince, ContextSnippet } from './select.js'

export interface CodeSections {
  attempt: number
  codeContext: readonly (Omit<ContextSnippet, 'why'> & { why?: string })[]
  contextAdded: readonly string[]
  contextCut: readonly string[]
  changes: ChangesSince | null
}

export function renderCodeSections(context: CodeSections, fence: (text: string) => string): string[] {
  const lines: string[] = []
  if (context.attempt > 1 && context.contextAdded.length > 0) {
    lines.push(`## Added for attempt ${context.attempt} (not shown before)`, '')
    for (const added of context.contextAdded) lines.push(`- ${added}`)
    lines.push('')
  }
  if (context.codeContext.length > 0) {
    lines.push('## Code around the failure', '')
    for (const snippet of context.codeContext) {
      lines.push(
        `\`${snippet.file}\` lines ${snippet.startLine}-${snippet.endLine}${snippet.why ? ` (${snippet.why})` : ''}:`,
        '',
        '```',
        fence(snippet.text),
        '```',
        '',
      )
    }
  }
  const changes = context.changes
  if (changes && changes.diff.trim() !== '') {
    lines.push(`## What changed ${changes.since}`, '', '```diff', fence(changes.diff.trimEnd()), '```', '')
  } else if (changes) {
    lines.push(`## What changed ${changes.since}`, '', 'No source file changed: the failure is older than that.', '')
  }
  if (context.contextCut.length > 0) {
    lines.push('Left out to keep the prompt small:', '')
    for (const cut of context.contextCut) lines.push(`- ${cut}`)
    lines.push('')
  }
  return lines
}
