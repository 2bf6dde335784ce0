// GitHub's full published REST description (`@octokit/openapi`, generated/api.github.com.json), used to
// route every request to its operation and to validate every request and response as GitHub would. The
// 13 MB file is parsed once per process; operations are resolved on first use and kept.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { type Schema, validateSchema } from './json-schema.js'

/** One parameter of an operation. */
export interface OperationParameter {
  name: string
  in: 'path' | 'query' | 'header' | 'cookie'
  required: boolean
  schema: Schema
}

/** One operation, with its parameters, body and responses resolved (schemas keep their `$ref`s). */
export interface Operation {
  operationId: string
  parameters: OperationParameter[]
  requestBody: { required: boolean; schema: Schema | null } | null
  responses: Record<string, { schema: Schema | null }>
}

/** A request matched to an operation, with its path parameters (still strings). */
export interface MatchedOperation {
  /** `METHOD /path/{template}` as in the description. */
  key: string
  operation: Operation
  pathParams: Record<string, string>
}

type Json = Record<string, unknown>
interface RawParameter {
  $ref?: string
  name: string
  in: OperationParameter['in']
  required?: boolean
  schema?: Schema
  'x-multi-segment'?: boolean
}
interface RawOperation {
  operationId: string
  parameters?: RawParameter[]
  requestBody?: Json
  responses?: Record<string, Json>
}
interface Description {
  openapi: string
  info: { version: string }
  paths: Record<string, Record<string, RawOperation | RawParameter[]>>
  components: Json
}
interface Route {
  method: string
  key: string
  template: string
  regex: RegExp
  names: string[]
  raw: RawOperation
  pathParameters: RawParameter[]
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'])
const requireHere = createRequire(import.meta.url)

/** Where the published description lives (the pinned `@octokit/openapi` devDependency). */
export function descriptionPath(): string {
  const packageJson = requireHere.resolve('@octokit/openapi/package.json')
  return join(dirname(packageJson), 'generated', 'api.github.com.json')
}

/** The whole of GitHub's REST description, with routing and validation. */
export class OpenApiDescription {
  readonly source: string
  private readonly spec: Description
  private readonly routes = new Map<string, Route[]>()
  private readonly operations = new Map<string, Operation>()

  constructor(path = descriptionPath()) {
    const packageVersion = (JSON.parse(readFileSync(join(dirname(path), '..', 'package.json'), 'utf8')) as Json).version
    this.spec = JSON.parse(readFileSync(path, 'utf8')) as Description
    this.source = `@octokit/openapi ${String(packageVersion)} (${this.spec.openapi}, ${this.spec.info.version}), generated/api.github.com.json`
    for (const [template, item] of Object.entries(this.spec.paths)) {
      const pathParameters = ((item.parameters as RawParameter[] | undefined) ?? []).map((p) => this.deref(p))
      for (const [method, raw] of Object.entries(item)) {
        if (!METHODS.has(method)) continue
        const operation = raw as RawOperation
        const parameters = [...pathParameters, ...(operation.parameters ?? []).map((p) => this.deref(p))]
        const names: string[] = []
        const pattern = template
          .split('/')
          .map((segment) => {
            const param = /^\{(.+)\}$/.exec(segment)
            if (!param?.[1]) return segment.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&')
            names.push(param[1])
            // A ref or a file path spans segments (`x-multi-segment`); any other parameter is one segment.
            const multi = parameters.some((p) => p.name === param[1] && p.in === 'path' && p['x-multi-segment'])
            return multi ? '(.+)' : '([^/]+)'
          })
          .join('/')
        const upper = method.toUpperCase()
        const list = this.routes.get(upper) ?? []
        list.push({
          method: upper,
          key: `${upper} ${template}`,
          template,
          regex: new RegExp(`^${pattern}$`),
          names,
          raw: operation,
          pathParameters,
        })
        this.routes.set(upper, list)
      }
    }
    for (const list of this.routes.values()) list.sort((a, b) => specificity(a.template, b.template))
  }

  /** The operation of `method pathname`, or undefined when GitHub's description has none. */
  match(method: string, pathname: string): MatchedOperation | undefined {
    for (const route of this.routes.get(method) ?? []) {
      const found = route.regex.exec(pathname)
      if (!found) continue
      const pathParams: Record<string, string> = {}
      route.names.forEach((name, index) => {
        pathParams[name] = decodeURIComponent(found[index + 1] ?? '')
      })
      return { key: route.key, operation: this.operation(route), pathParams }
    }
    return undefined
  }

  /** Every operation key (`METHOD /template`) of the description. */
  operationKeys(): string[] {
    return [...this.routes.values()].flat().map((route) => route.key)
  }

  /** The operation with this operationId (e.g. `issues/list-comments`), or undefined. */
  operationById(operationId: string): MatchedOperation | undefined {
    const route = [...this.routes.values()].flat().find((r) => r.raw.operationId === operationId)
    return route ? { key: route.key, operation: this.operation(route), pathParams: {} } : undefined
  }

  private readonly resolve = (ref: string): Schema => this.pointer(ref) as Schema

  /** Validates any value against a schema of this description. */
  validate(schema: Schema, value: unknown, path: string): string[] {
    return validateSchema(schema, value, this.resolve, path)
  }

  /**
   * Validates path and query parameters and the JSON body as GitHub would before acting; returns the
   * problems (a non-empty list is GitHub's 422).
   */
  validateRequest(match: MatchedOperation, query: URLSearchParams, body: unknown, hasBody: boolean): string[] {
    const problems: string[] = []
    for (const parameter of match.operation.parameters) {
      if (parameter.in !== 'path' && parameter.in !== 'query') continue
      const raw = parameter.in === 'path' ? match.pathParams[parameter.name] : query.get(parameter.name)
      if (raw === null || raw === undefined) {
        if (parameter.required) problems.push(`${parameter.in} parameter '${parameter.name}' is required`)
        continue
      }
      const value = this.coerce(parameter.schema, raw)
      problems.push(...this.validate(parameter.schema, value, `${parameter.in}.${parameter.name}`))
    }
    const requestBody = match.operation.requestBody
    if (requestBody?.schema) {
      if (!hasBody) {
        if (requestBody.required) problems.push('body: a JSON body is required')
      } else {
        problems.push(...this.validate(requestBody.schema, body, 'body'))
      }
    }
    return problems
  }

  /** Validates a response the stand-in is about to send: a documented status, and a body of its schema. */
  validateResponse(match: MatchedOperation, status: number, body: unknown): string[] {
    const documented = match.operation.responses[String(status)]
    if (!documented) {
      // Error statuses GitHub sends on any operation (auth, permission, rate limits, faults) are not
      // all listed per operation; only an undocumented success is a stand-in bug.
      return status < 300 ? [`status ${status} is not a documented response of ${match.operation.operationId}`] : []
    }
    if (!documented.schema) {
      return body === undefined ? [] : [`status ${status} of ${match.operation.operationId} must have no body`]
    }
    return this.validate(documented.schema, body, 'response')
  }

  private operation(route: Route): Operation {
    const cached = this.operations.get(route.key)
    if (cached) return cached
    const raw = route.raw
    const parameters = [...route.pathParameters, ...(raw.parameters ?? []).map((p) => this.deref(p))].map((p) => ({
      name: p.name,
      in: p.in,
      required: p.required === true,
      schema: p.schema ?? {},
    }))
    const body = raw.requestBody ? this.deref(raw.requestBody) : undefined
    const responses: Operation['responses'] = {}
    for (const [status, response] of Object.entries(raw.responses ?? {})) {
      responses[status] = { schema: jsonSchemaOf(this.deref(response).content) }
    }
    const operation: Operation = {
      operationId: raw.operationId,
      parameters,
      requestBody: body ? { required: body.required === true, schema: jsonSchemaOf(body.content) } : null,
      responses,
    }
    this.operations.set(route.key, operation)
    return operation
  }

  /** Follows `$ref`s at the top of a parameter, body or response object (schemas resolve as validated). */
  private deref<T extends object>(node: T): T {
    const ref = (node as { $ref?: unknown }).$ref
    return typeof ref === 'string' ? this.deref(this.pointer(ref) as T) : node
  }

  private pointer(ref: string): unknown {
    if (!ref.startsWith('#/')) throw new Error(`openapi: unsupported $ref '${ref}'; expected a local '#/...' pointer`)
    let node: unknown = this.spec
    for (const part of ref.slice(2).split('/')) {
      node = (node as Json | undefined)?.[part.replaceAll('~1', '/').replaceAll('~0', '~')]
      if (node === undefined) throw new Error(`openapi: $ref '${ref}' points nowhere in ${this.source}`)
    }
    return node
  }

  /** Query and path values arrive as strings: convert them as GitHub's parser does before checking types. */
  private coerce(schema: Schema, raw: string): unknown {
    const resolved = schema.$ref ? this.resolve(schema.$ref) : schema
    const types = resolved.oneOf
      ? resolved.oneOf.flatMap((option) => (option.type === undefined ? [] : [option.type].flat()))
      : [resolved.type ?? 'string'].flat()
    if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw)
    if (types.includes('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true'
    return raw
  }
}

/** Literal segments win over parameters, single-segment parameters over multi-segment ones. */
function specificity(a: string, b: string): number {
  const left = a.split('/')
  const right = b.split('/')
  for (let index = 0; index < Math.min(left.length, right.length); index++) {
    const leftParam = left[index]?.startsWith('{') ?? false
    const rightParam = right[index]?.startsWith('{') ?? false
    if (leftParam !== rightParam) return leftParam ? 1 : -1
  }
  return right.length - left.length
}

function jsonSchemaOf(content: unknown): Schema | null {
  const media = content as Record<string, { schema?: Schema }> | undefined
  const json = media?.['application/json'] ?? media?.['application/scim+json']
  return json?.schema ?? null
}

let shared: OpenApiDescription | undefined

/** The description, parsed once per process (every stand-in in a test file shares it). */
export function githubDescription(): OpenApiDescription {
  shared ??= new OpenApiDescription()
  return shared
}
