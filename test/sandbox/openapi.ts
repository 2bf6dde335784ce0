// GitHub's own description of the operations the sandbox serves (extracted by scripts/extract-openapi.mjs),
// used to route requests and to validate every request and response as GitHub would.
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Schema, validateSchema } from './json-schema.js'

/** One parameter of an operation. */
export interface OperationParameter {
  name: string
  in: 'path' | 'query' | 'header'
  required: boolean
  schema: Schema
}

/** One operation as stored in openapi-subset.json. */
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

interface SubsetFile {
  source: string
  operations: Record<string, Operation>
  components: { schemas: Record<string, Schema> }
}

const SUBSET_PATH = join(dirname(fileURLToPath(import.meta.url)), 'openapi-subset.json')

/** The extracted operations, with routing and validation. */
export class OpenApiSubset {
  readonly source: string
  private readonly operations: Record<string, Operation>
  private readonly schemas: Record<string, Schema>
  private readonly routes: { method: string; regex: RegExp; names: string[]; key: string }[]

  constructor(path = SUBSET_PATH) {
    const file = JSON.parse(readFileSync(path, 'utf8')) as SubsetFile
    this.source = file.source
    this.operations = file.operations
    this.schemas = file.components.schemas
    this.routes = Object.keys(file.operations).map((key) => {
      const [method = '', template = ''] = key.split(' ')
      const names: string[] = []
      const pattern = template
        .split('/')
        .map((segment) => {
          const param = /^\{(.+)\}$/.exec(segment)
          if (!param?.[1]) return segment.replace(/[.*+?^$()|[\]\\]/g, '\\$&')
          names.push(param[1])
          return '([^/]+)'
        })
        .join('/')
      return { method, regex: new RegExp(`^${pattern}$`), names, key }
    })
    // Literal segments win over parameters (`/issues/comments/{id}` before `/issues/{number}/...`).
    this.routes.sort((a, b) => a.names.length - b.names.length)
  }

  /** The operation serving `method pathname`, or undefined when the sandbox does not serve it. */
  match(method: string, pathname: string): MatchedOperation | undefined {
    for (const route of this.routes) {
      if (route.method !== method) continue
      const found = route.regex.exec(pathname)
      if (!found) continue
      const pathParams: Record<string, string> = {}
      route.names.forEach((name, index) => {
        pathParams[name] = decodeURIComponent(found[index + 1] ?? '')
      })
      const operation = this.operations[route.key]
      if (operation) return { key: route.key, operation, pathParams }
    }
    return undefined
  }

  /** Every operation key (`METHOD /template`) in the subset. */
  operationKeys(): string[] {
    return Object.keys(this.operations)
  }

  private readonly resolve = (ref: string): Schema => {
    const name = ref.replace('#/components/schemas/', '')
    const schema = this.schemas[name]
    if (!schema) throw new Error(`openapi-subset.json has no schema '${name}' (referenced as '${ref}')`)
    return schema
  }

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
      const raw = parameter.in === 'path' ? match.pathParams[parameter.name] : query.get(parameter.name)
      if (parameter.in === 'header') continue
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
