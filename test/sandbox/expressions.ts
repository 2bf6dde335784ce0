// GitHub's `${{ }}` expressions as far as workflows run by the sandbox use them: literals, context
// paths, operators, a few functions, and the status functions, which read the job's or step's state
// from the context's `$status` (absent: nothing failed, as in a lone job).
/**
 * The contexts expressions read (`github`, `inputs`, `secrets`, `env`, `vars`, `needs`, `matrix`,
 * `steps`, `jobs`...), and `$status` for the status functions.
 */
export type ExpressionContext = Record<string, unknown> & { $status?: StatusContext }

type Token = { kind: 'num' | 'str' | 'ident' | 'op'; text: string; value?: unknown; at: number }

function tokenize(source: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < source.length) {
    const rest = source.slice(i)
    const space = /^\s+/.exec(rest)
    if (space) {
      i += space[0].length
      continue
    }
    const quoted = /^'((?:[^']|'')*)'/.exec(rest)
    const number = /^-?\d+(\.\d+)?/.exec(rest)
    const ident = /^[A-Za-z_][\w-]*/.exec(rest)
    const op = /^(==|!=|<=|>=|&&|\|\||[!<>().,[\]*])/.exec(rest)
    if (quoted) tokens.push({ kind: 'str', text: quoted[0], value: quoted[1]?.replaceAll("''", "'"), at: i })
    else if (number) tokens.push({ kind: 'num', text: number[0], value: Number(number[0]), at: i })
    else if (ident) tokens.push({ kind: 'ident', text: ident[0], at: i })
    else if (op) tokens.push({ kind: 'op', text: op[0], at: i })
    else throw new Error(`sandbox: cannot read the expression '${source}' at '${rest}'`)
    i += (quoted ?? number ?? ident ?? op)?.[0].length ?? 1
  }
  return tokens
}

/** GitHub's truthiness: false, 0, '', null and NaN are false; objects and arrays are true. */
const truthy = (value: unknown): boolean =>
  !(value === false || value === 0 || value === '' || value === null || value === undefined || Number.isNaN(value))

/** GitHub's number of a value: null 0, a boolean 1 or 0, a string as a JSON number ('' is 0), else NaN. */
function toNumber(value: unknown): number {
  if (value === null || value === undefined) return 0
  if (typeof value === 'boolean') return value ? 1 : 0
  if (typeof value === 'number') return value
  if (typeof value !== 'string') return Number.NaN
  const text = value.trim()
  if (text === '') return 0
  return /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(text) ? Number(text) : Number.NaN
}

/** GitHub's loose equality: strings compare case-insensitively; mixed types compare as numbers. */
function looseEquals(left: unknown, right: unknown): boolean {
  if (typeof left === 'string' && typeof right === 'string') return left.toLowerCase() === right.toLowerCase()
  if (typeof left === 'object' && left !== null) return left === right
  if (typeof right === 'object' && right !== null) return false
  return toNumber(left) === toNumber(right)
}

/**
 * GitHub's `<`, `>`, `<=`, `>=`: two strings compare ordinally ignoring case; other mixed types as
 * numbers; an object or an array, or a NaN, compares false every way.
 */
function looseCompare(operator: string, left: unknown, right: unknown): boolean {
  if ((typeof left === 'object' && left !== null) || (typeof right === 'object' && right !== null)) return false
  const strings = typeof left === 'string' && typeof right === 'string'
  const [a, b] = strings ? [left.toUpperCase(), right.toUpperCase()] : [toNumber(left), toNumber(right)]
  return operator === '<' ? a < b : operator === '>' ? a > b : operator === '<=' ? a <= b : a >= b
}

const FUNCTIONS: Record<string, (...args: unknown[]) => unknown> = {
  contains: (search, item) =>
    Array.isArray(search)
      ? search.some((element) => looseEquals(element, item))
      : String(search ?? '')
          .toLowerCase()
          .includes(String(item ?? '').toLowerCase()),
  startswith: (text, prefix) =>
    String(text ?? '')
      .toLowerCase()
      .startsWith(String(prefix ?? '').toLowerCase()),
  endswith: (text, suffix) =>
    String(text ?? '')
      .toLowerCase()
      .endsWith(String(suffix ?? '').toLowerCase()),
  format: (template, ...args) => format(String(template ?? ''), args),
  join: (items, separator = ',') => (Array.isArray(items) ? items.join(String(separator)) : String(items ?? '')),
  tojson: (value) => JSON.stringify(value, null, 2),
  fromjson: (text) => JSON.parse(String(text)),
}

/** A value as GitHub's expressions turn it into text: null is empty, an array `Array`, an object `Object`. */
const asText = (value: unknown): string =>
  value === null || value === undefined
    ? ''
    : Array.isArray(value)
      ? 'Array'
      : typeof value === 'object'
        ? 'Object'
        : String(value)

/**
 * GitHub's `format`: `{N}` is the Nth argument, `{{` and `}}` are braces; a placeholder past the last
 * argument, or a lone brace, is an error, never an empty string.
 */
function format(template: string, args: unknown[]): string {
  let text = ''
  for (let i = 0; i < template.length; i++) {
    const char = template[i]
    const next = template[i + 1]
    if ((char === '{' && next === '{') || (char === '}' && next === '}')) {
      text += char
      i++
    } else if (char === '{') {
      const placeholder = /^\{(\d+)\}/.exec(template.slice(i))
      if (!placeholder) throw new Error(`The following format string is invalid: '${template}'`)
      const index = Number(placeholder[1])
      if (index >= args.length) {
        throw new Error(`The following format string references more arguments than were supplied: '${template}'`)
      }
      text += asText(args[index])
      i += placeholder[0].length - 1
    } else if (char === '}') {
      throw new Error(`The following format string is invalid: '${template}'`)
    } else text += char
  }
  return text
}

/** What the status functions report: for a job's `if:` its needs' results, for a step's the steps before. */
export interface StatusContext {
  success: boolean
  failure: boolean
  cancelled: boolean
}

const STATUS_FUNCTIONS = new Set(['success', 'failure', 'cancelled', 'always'])

/**
 * Whether a condition calls a status function (without one, GitHub reads it as `success() && (...)`),
 * read from its tokens: `'always()'` in a string is no call.
 */
export function callsStatusFunction(condition: string): boolean {
  return expressionReferences(conditionExpression(condition)).functions.some((fn) => STATUS_FUNCTIONS.has(fn))
}

/** A condition's expression: `if:` takes one with or without `${{ }}`. */
function conditionExpression(condition: string): string {
  const trimmed = condition.trim()
  return /^\$\{\{([\s\S]*)\}\}$/.exec(trimmed)?.[1] ?? trimmed
}

/**
 * Whether a job's `if:` lets it run in a cancelled run: GitHub cancels a job without a condition or
 * with one that reads no status function, and `success()` is false there; `always()`, `cancelled()`,
 * or `failure()` after a failure hold.
 */
export function holdsWhenCancelled(condition: string | undefined, context: ExpressionContext): boolean {
  if (condition === undefined || !callsStatusFunction(condition)) return false
  const status = context.$status ?? { success: true, failure: false, cancelled: false }
  return evaluateCondition(condition, { ...context, $status: { ...status, success: false, cancelled: true } })
}

/**
 * Evaluates one expression (the text inside `${{ }}`) as GitHub does: literals, context paths
 * (`github.event.issue.number`, `inputs['loop-id']`), `!`, `==`, `!=`, `<`, `>`, `<=`, `>=`, `&&`, `||`,
 * parentheses, object filters (`github.event.issue.labels.*.name`), and the functions contains,
 * startsWith, endsWith, format, join, toJSON, fromJSON, success, always, failure, cancelled.
 */
export function evaluateExpression(expression: string, context: ExpressionContext): unknown {
  const tokens = tokenize(expression)
  let position = 0
  const peek = () => tokens[position]
  const take = (text?: string): Token => {
    const token = tokens[position]
    if (!token || (text !== undefined && token.text !== text)) {
      throw new Error(`sandbox: expected '${text ?? 'more'}' in the expression '${expression}'`)
    }
    position++
    return token
  }
  const orExpression = (): unknown => {
    let value = andExpression()
    while (peek()?.text === '||') {
      take()
      const right = andExpression()
      value = truthy(value) ? value : right
    }
    return value
  }
  const andExpression = (): unknown => {
    let value = comparison()
    while (peek()?.text === '&&') {
      take()
      const right = comparison()
      value = truthy(value) ? right : value
    }
    return value
  }
  const comparison = (): unknown => {
    const left = unary()
    const operator = peek()?.text
    if (
      operator === '==' ||
      operator === '!=' ||
      operator === '<' ||
      operator === '>' ||
      operator === '<=' ||
      operator === '>='
    ) {
      take()
      const right = unary()
      if (operator === '==') return looseEquals(left, right)
      if (operator === '!=') return !looseEquals(left, right)
      return looseCompare(operator, left, right)
    }
    return left
  }
  const unary = (): unknown => {
    if (peek()?.text === '!') {
      take()
      return !truthy(unary())
    }
    return primary()
  }
  const primary = (): unknown => {
    const token = take()
    if (token.text === '(') {
      const value = orExpression()
      take(')')
      return value
    }
    if (token.kind === 'str' || token.kind === 'num') return token.value
    if (token.kind !== 'ident') throw new Error(`sandbox: unexpected '${token.text}' in the expression '${expression}'`)
    const word = token.text
    if (word === 'true' || word === 'false') return word === 'true'
    if (word === 'null') return null
    if (peek()?.text === '(') {
      const lower = word.toLowerCase()
      if (STATUS_FUNCTIONS.has(lower)) {
        take('(')
        take(')')
        const status = context.$status ?? { success: true, failure: false, cancelled: false }
        return lower === 'always' ? true : status[lower as keyof StatusContext]
      }
      const fn = FUNCTIONS[lower]
      if (!fn) {
        throw new Error(
          `sandbox: the function '${word}' in '${expression}' is beyond what the workflow engine evaluates`,
        )
      }
      take('(')
      const args: unknown[] = []
      while (peek()?.text !== ')') {
        args.push(orExpression())
        if (peek()?.text === ',') take(',')
      }
      take(')')
      return fn(...args)
    }
    // GitHub refuses a name that is no context here ("Unrecognized named-value"); it is never undefined.
    if (!Object.hasOwn(context, word)) {
      throw new Error(
        `Unrecognized named-value: '${word}'. Located at position ${token.at + 1} within expression: ${expression}`,
      )
    }
    let value: unknown = context[word]
    // After an object filter (`labels.*.name`) each step applies to every element, as GitHub's does.
    let filtered = false
    const step = (key: string): unknown =>
      filtered ? (value as unknown[]).flatMap((element) => present(member(element, key))) : member(value, key)
    for (;;) {
      const next = peek()?.text
      if (next === '.') {
        take('.')
        const property = take().text
        if (property === '*') {
          value = filtered ? (value as unknown[]).flatMap(elements) : elements(value)
          filtered = true
        } else value = step(property)
      } else if (next === '[') {
        take('[')
        const key = orExpression()
        take(']')
        value = step(String(key))
      } else {
        return value
      }
    }
  }
  /** The elements an object filter selects: an array's items, an object's values, nothing otherwise. */
  const elements = (value: unknown): unknown[] =>
    Array.isArray(value) ? [...value] : value !== null && typeof value === 'object' ? Object.values(value) : []
  const present = (value: unknown): unknown[] => (value === undefined ? [] : [value])
  const member = (value: unknown, property: string): unknown =>
    value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[property] : undefined
  const result = orExpression()
  if (position < tokens.length) {
    throw new Error(`sandbox: unexpected '${tokens[position]?.text}' in the expression '${expression}'`)
  }
  return result
}

/**
 * The context names and the functions an expression reads, without evaluating it (as GitHub checks a
 * workflow file when it reads it): a name is an identifier not after `.` and not called.
 */
export function expressionReferences(expression: string): { names: string[]; functions: string[] } {
  const tokens = tokenize(expression)
  const names = new Set<string>()
  const functions = new Set<string>()
  tokens.forEach((token, index) => {
    if (token.kind !== 'ident' || tokens[index - 1]?.text === '.') return
    if (tokens[index + 1]?.text === '(') functions.add(token.text.toLowerCase())
    else if (!['true', 'false', 'null'].includes(token.text)) names.add(token.text)
  })
  return { names: [...names], functions: [...functions] }
}

/** The functions the engine evaluates (lower case), besides the status functions. */
export const EXPRESSION_FUNCTIONS: ReadonlySet<string> = new Set(Object.keys(FUNCTIONS))

/** Evaluates a job's `if:` (with or without `${{ }}`) to a boolean, as GitHub does. */
export function evaluateCondition(condition: string, context: ExpressionContext): boolean {
  return truthy(evaluateExpression(conditionExpression(condition), context))
}

/** Replaces every `${{ expression }}` in `template`; null and undefined become empty strings, as on GitHub. */
export function interpolate(template: string, context: ExpressionContext): string {
  return template.replace(/\$\{\{(.*?)\}\}/gs, (_, expression: string) => {
    const value = evaluateExpression(expression, context)
    if (value === undefined || value === null) return ''
    return typeof value === 'object' ? JSON.stringify(value) : String(value)
  })
}

/**
 * A job's or step's `if:` as GitHub reads it: without a status function it means `success() && (...)`;
 * an absent condition means `success()`.
 */
export function evaluateIf(condition: string | undefined, context: ExpressionContext): boolean {
  const status = context.$status ?? { success: true, failure: false, cancelled: false }
  if (condition === undefined || condition.trim() === '') return status.success
  if (!callsStatusFunction(condition)) return status.success && evaluateCondition(condition, context)
  return evaluateCondition(condition, context)
}

/**
 * A value that may be one whole `${{ }}` (kept as the value it evaluates to: an object from fromJSON, a
 * boolean), or a template (interpolated to a string); anything else as it is.
 */
export function evaluateValue(value: unknown, context: ExpressionContext): unknown {
  if (typeof value !== 'string') return value
  const whole = /^\s*\$\{\{((?:(?!\}\})[\s\S])*)\}\}\s*$/.exec(value)
  if (whole?.[1] !== undefined) return evaluateExpression(whole[1], context)
  return value.includes('${{') ? interpolate(value, context) : value
}
