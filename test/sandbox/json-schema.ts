// A compact validator for the part of JSON Schema (OpenAPI 3.0 dialect) that GitHub's REST description
// uses: type, nullable, enum, required, properties, additionalProperties, items, min/maxItems,
// uniqueItems, maxProperties, min/maxLength, pattern, minimum/maximum, oneOf (with discriminator), anyOf,
// allOf, the formats of schema-formats.ts, and local $refs. It reports every problem with a
// JSON-path-like location.
import { numberFormatProblem, stringFormatProblem } from './schema-formats.js'

/** A schema node as it appears in GitHub's description. */
export type Schema = {
  $ref?: string
  type?: string | string[]
  nullable?: boolean
  enum?: unknown[]
  required?: string[]
  properties?: Record<string, Schema>
  additionalProperties?: boolean | Schema
  items?: Schema
  minItems?: number
  maxItems?: number
  uniqueItems?: boolean
  maxProperties?: number
  minLength?: number
  maxLength?: number
  pattern?: string
  minimum?: number
  maximum?: number
  oneOf?: Schema[]
  anyOf?: Schema[]
  allOf?: Schema[]
  discriminator?: { propertyName: string; mapping?: Record<string, string> }
  format?: string
}

/** Resolves local `#/components/...` references. */
export type RefResolver = (ref: string) => Schema

const typeOf = (value: unknown): string => {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value
}

const describe = (value: unknown): string => {
  const text = JSON.stringify(value)
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text
}

// Patterns are compiled once: the same schemas are checked on every response.
const compiledPatterns = new Map<string, RegExp>()
function patternOf(source: string): RegExp {
  let compiled = compiledPatterns.get(source)
  if (!compiled) {
    compiled = new RegExp(source, 'u')
    compiledPatterns.set(source, compiled)
  }
  return compiled
}

/**
 * Validates `value` against `schema`; returns the problems found (empty when valid), each as
 * `<path>: <what is wrong>`.
 */
export function validateSchema(schema: Schema, value: unknown, resolve: RefResolver, path = '$'): string[] {
  if (schema.$ref !== undefined) return validateSchema(resolve(schema.$ref), value, resolve, path)
  if (value === null && schema.nullable === true) return []

  const problems: string[] = []
  if (schema.allOf) for (const part of schema.allOf) problems.push(...validateSchema(part, value, resolve, path))
  if (schema.anyOf && !schema.anyOf.some((part) => validateSchema(part, value, resolve, path).length === 0)) {
    problems.push(`${path}: ${describe(value)} matches none of the ${schema.anyOf.length} allowed shapes (anyOf)`)
  }
  if (schema.oneOf) problems.push(...validateOneOf(schema, value, resolve, path))

  const actual = typeOf(value)
  if (schema.type !== undefined) {
    const allowed = Array.isArray(schema.type) ? schema.type : [schema.type]
    const fits = allowed.some((t) => t === actual || (t === 'number' && actual === 'integer'))
    if (!fits) {
      problems.push(`${path}: expected ${allowed.join(' or ')}${schema.nullable ? ' or null' : ''}, got ${actual}`)
      return problems
    }
  }
  if (schema.enum && !schema.enum.some((option) => option === value)) {
    problems.push(`${path}: ${describe(value)} is not one of ${schema.enum.map(describe).join(', ')}`)
  }
  if (typeof value === 'string') {
    const expected = schema.format ? stringFormatProblem(schema.format, value) : undefined
    if (expected) problems.push(`${path}: ${describe(value)} is not ${expected}`)
    if (schema.pattern !== undefined && !patternOf(schema.pattern).test(value)) {
      problems.push(`${path}: ${describe(value)} does not match the pattern /${schema.pattern}/`)
    }
    if (schema.minLength !== undefined && value.length < schema.minLength) {
      problems.push(`${path}: shorter than ${schema.minLength} characters`)
    }
    if (schema.maxLength !== undefined && value.length > schema.maxLength) {
      problems.push(`${path}: longer than ${schema.maxLength} characters`)
    }
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) problems.push(`${path}: below ${schema.minimum}`)
    if (schema.maximum !== undefined && value > schema.maximum) problems.push(`${path}: above ${schema.maximum}`)
    const expected = schema.format ? numberFormatProblem(schema.format, value) : undefined
    if (expected) problems.push(`${path}: ${describe(value)} is not ${expected}`)
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) {
      problems.push(`${path}: has ${value.length} items, at least ${schema.minItems} required`)
    }
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      problems.push(`${path}: has ${value.length} items, at most ${schema.maxItems} allowed`)
    }
    if (schema.uniqueItems === true) {
      const seen = new Set(value.map((item) => JSON.stringify(item)))
      if (seen.size < value.length) problems.push(`${path}: has duplicate items where they must be unique`)
    }
    if (schema.items) {
      const items = schema.items
      value.forEach((item, index) => {
        problems.push(...validateSchema(items, item, resolve, `${path}[${index}]`))
      })
    }
  }
  if (actual === 'object') problems.push(...validateObject(schema, value as Record<string, unknown>, resolve, path))
  return problems
}

function validateObject(schema: Schema, value: Record<string, unknown>, resolve: RefResolver, path: string): string[] {
  const problems: string[] = []
  for (const name of schema.required ?? []) {
    if (!(name in value)) problems.push(`${path}: missing required property '${name}'`)
  }
  const keys = Object.keys(value)
  if (schema.maxProperties !== undefined && keys.length > schema.maxProperties) {
    problems.push(`${path}: has ${keys.length} properties, at most ${schema.maxProperties} allowed`)
  }
  for (const key of keys) {
    const child = `${path}.${key}`
    const declared = schema.properties?.[key]
    if (declared) {
      problems.push(...validateSchema(declared, value[key], resolve, child))
    } else if (schema.additionalProperties === false) {
      problems.push(`${path}: unexpected property '${key}'`)
    } else if (typeof schema.additionalProperties === 'object') {
      problems.push(...validateSchema(schema.additionalProperties, value[key], resolve, child))
    }
  }
  return problems
}

function validateOneOf(schema: Schema, value: unknown, resolve: RefResolver, path: string): string[] {
  const options = schema.oneOf ?? []
  const discriminator = schema.discriminator
  if (discriminator && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const tag = (value as Record<string, unknown>)[discriminator.propertyName]
    const target = typeof tag === 'string' ? discriminator.mapping?.[tag] : undefined
    if (target) return validateSchema({ $ref: target }, value, resolve, path)
  }
  const results = options.map((option) => validateSchema(option, value, resolve, path))
  const matching = results.filter((r) => r.length === 0).length
  if (matching === 1) return []
  if (matching > 1)
    return [`${path}: ${describe(value)} matches ${matching} of the shapes where exactly one is allowed`]
  // Report the closest option's problems: they name what to fix.
  const closest = results.reduce((best, r) => (r.length < best.length ? r : best))
  return [`${path}: ${describe(value)} matches none of the ${options.length} allowed shapes (oneOf)`, ...closest]
}
