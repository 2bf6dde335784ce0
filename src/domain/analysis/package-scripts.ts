/**
 * The verifier often is a `package.json` script (`npm test`): a work command that rewrites the script
 * rewrites the verifier. Scripts that existed before and were changed or removed are findings; scripts
 * added are not (a project gains scripts as it grows). Pure.
 */

/** A script that cannot fail: `exit 0`, `true`, `:`, an `echo`, nothing, or anything `|| true`. */
const CANNOT_FAIL = /^\s*(?:exit\s+0|true|:|echo\b[^;&|]*)?\s*$|\|\|\s*(?:true|exit\s+0|:)\s*$/

/** The findings for one `package.json` changed from `before` to `after` (empty when either is not JSON). */
export function packageScriptChanges(before: string, after: string): string[] {
  const old = scriptsOf(before)
  const now = scriptsOf(after)
  if (old === null || now === null) return []
  const findings: string[] = []
  for (const [name, command] of Object.entries(old)) {
    const replaced = now[name]
    if (replaced === undefined) findings.push(`script '${name}' removed (was ${quote(command)})`)
    else if (replaced !== command) {
      const neutered = CANNOT_FAIL.test(replaced) && !CANNOT_FAIL.test(command) ? ', which can no longer fail' : ''
      findings.push(`script '${name}' changed from ${quote(command)} to ${quote(replaced)}${neutered}`)
    }
  }
  return findings
}

/** The `scripts` of a package.json text (non-string values left out), or null when it does not parse. */
function scriptsOf(text: string): Record<string, string> | null {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return null
  }
  if (typeof parsed !== 'object' || parsed === null) return null
  const scripts = (parsed as { scripts?: unknown }).scripts
  if (typeof scripts !== 'object' || scripts === null) return {}
  return Object.fromEntries(
    Object.entries(scripts).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  )
}

function quote(command: string): string {
  return `'${command.length > 80 ? `${command.slice(0, 77)}...` : command}'`
}
