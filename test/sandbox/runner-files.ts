// What the Actions runner reads back from a step: the file commands (GITHUB_OUTPUT, GITHUB_STATE,
// GITHUB_ENV: `name=value` lines and `name<<DELIMITER` heredocs) and the workflow commands on stdout
// (`::error file=a.ts,line=3::message`, `::add-mask::`, `::stop-commands::`).

/** The runner's error for NODE_OPTIONS in GITHUB_ENV, whose line it skips (runner v2.309.0 on). */
export const NODE_OPTIONS_REFUSED = "Can't store NODE_OPTIONS output parameter using '$GITHUB_ENV' command."

/**
 * Parses a file-command file as the runner does. Throws, naming the file's line, on a heredoc without
 * its closing delimiter or a line that is neither form (the runner fails the step the same way).
 */
export function parseFileCommands(text: string, fileLabel: string): Record<string, string> {
  const values: Record<string, string> = {}
  const lines = text.split(/\r?\n/)
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? ''
    if (line === '') continue
    const heredoc = /^([^=]+?)<<(.+)$/.exec(line)
    const equals = line.indexOf('=')
    if (heredoc?.[1] && heredoc[2] && (equals < 0 || line.indexOf('<<') < equals)) {
      const delimiter = heredoc[2]
      const body: string[] = []
      let closed = false
      for (index++; index < lines.length; index++) {
        if (lines[index] === delimiter) {
          closed = true
          break
        }
        body.push(lines[index] ?? '')
      }
      if (!closed) throw new Error(`${fileLabel}: matching delimiter '${delimiter}' not found for '${heredoc[1]}'`)
      values[heredoc[1]] = body.join('\n')
    } else if (equals > 0) {
      values[line.slice(0, equals)] = line.slice(equals + 1)
    } else {
      throw new Error(`${fileLabel}: line ${index + 1} is neither 'name=value' nor 'name<<DELIMITER': '${line}'`)
    }
  }
  return values
}

/** An annotation the step printed (`::error`, `::warning`, `::notice`). */
export interface Annotation {
  level: 'error' | 'warning' | 'notice'
  message: string
  file?: string
  line?: number
  endLine?: number
  col?: number
  endColumn?: number
  title?: string
}

/** What the runner gathered from a step's output. */
export interface WorkflowCommands {
  annotations: Annotation[]
  /** Values registered with `::add-mask::`. */
  masks: string[]
  /** Lines that looked like workflow commands the runner does not know (a typo in the action). */
  unknown: string[]
}

const unescapeData = (text: string) => text.replaceAll('%0D', '\r').replaceAll('%0A', '\n').replaceAll('%25', '%')
const unescapeProperty = (text: string) => unescapeData(text).replaceAll('%3A', ':').replaceAll('%2C', ',')

const KNOWN = new Set([
  'error',
  'warning',
  'notice',
  'debug',
  'group',
  'endgroup',
  'add-mask',
  'stop-commands',
  'echo',
  'add-matcher',
  'remove-matcher',
])

/** Parses workflow commands from a step's stdout, honouring `::stop-commands::TOKEN` ... `::TOKEN::`. */
export function parseWorkflowCommands(stdout: string): WorkflowCommands {
  const result: WorkflowCommands = { annotations: [], masks: [], unknown: [] }
  let stopToken: string | undefined
  for (const line of stdout.split(/\r?\n/)) {
    const trimmed = line.trimStart()
    if (!trimmed.startsWith('::')) continue
    const match = /^::([A-Za-z-]+)(?: ([^:]*))?::(.*)$/.exec(trimmed)
    if (stopToken !== undefined) {
      if (trimmed === `::${stopToken}::`) stopToken = undefined
      continue
    }
    if (!match?.[1]) continue
    const [, command, rawProperties = '', rawMessage = ''] = match
    if (!KNOWN.has(command)) {
      result.unknown.push(trimmed)
      continue
    }
    const message = unescapeData(rawMessage)
    if (command === 'stop-commands') stopToken = rawMessage
    else if (command === 'add-mask') result.masks.push(message)
    else if (command === 'error' || command === 'warning' || command === 'notice') {
      const annotation: Annotation = { level: command, message }
      for (const pair of rawProperties.split(',').filter(Boolean)) {
        const eq = pair.indexOf('=')
        const key = pair.slice(0, eq).trim()
        const value = unescapeProperty(pair.slice(eq + 1))
        if (key === 'file' || key === 'title') annotation[key] = value
        else if (key === 'line' || key === 'endLine' || key === 'col' || key === 'endColumn')
          annotation[key] = Number(value)
      }
      result.annotations.push(annotation)
    }
  }
  return result
}
