// GitHub's GraphQL endpoint (`POST /graphql`) for the mutations the action sends (marking its pull
// request ready for review, pinning the dashboard issue) and the one query (whether an issue is pinned,
// `repository.issue.isPinned`): every query is
// parsed and validated against GitHub's published schema (`@octokit/graphql-schema`), then executed
// against the sandbox's model. A valid query for a field the sandbox does not serve is a violation, not
// a silent null. Errors come back as GitHub sends them: HTTP 200 with an `errors` array.
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  buildSchema,
  type FieldNode,
  type GraphQLSchema,
  graphql,
  Kind,
  type OperationDefinitionNode,
  parse,
  type SelectionSetNode,
  validate,
} from 'graphql'
import { nodeId } from './github-objects.js'
import type { GitHubModel, Scope } from './rest-api.js'

const SCHEMA_PATH = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'node_modules',
  '@octokit',
  'graphql-schema',
  'schema.graphql',
)

let schema: GraphQLSchema | undefined
/** GitHub's schema, built once per process. It repeats a few fields and breaks a few interface rules, which GitHub's own server tolerates: so must the stand-in. */
function githubSchema(): GraphQLSchema {
  schema ??= buildSchema(readFileSync(SCHEMA_PATH, 'utf8'), { assumeValidSDL: true, assumeValid: true })
  return schema
}

/** The mutations and queries the sandbox serves; anything else valid is reported as unserved. */
const SERVED = new Set(['markPullRequestReadyForReview', 'pinIssue', 'unpinIssue', 'repository'])

/** GitHub pins at most three issues per repository. */
export const MAX_PINNED_ISSUES = 3

export interface GraphqlReply {
  status: number
  body: unknown
  /** What the request got wrong, for the API's `violations`. */
  problems: string[]
}

/** Serves one GraphQL request from a token that holds `can(scope, level)`. */
export async function serveGraphql(
  raw: string,
  can: (scope: Scope, level: 'read' | 'write') => boolean,
  model: GitHubModel,
): Promise<GraphqlReply> {
  let request: { query?: unknown; variables?: unknown }
  try {
    request = JSON.parse(raw) as typeof request
  } catch {
    return { status: 400, body: { message: 'Problems parsing JSON' }, problems: ['graphql: the body is not JSON'] }
  }
  if (typeof request.query !== 'string') {
    const message = 'A query attribute must be specified and must be a string.'
    return { status: 200, body: { errors: [{ message }] }, problems: [`graphql: ${message}`] }
  }
  let document: ReturnType<typeof parse>
  try {
    document = parse(request.query)
  } catch (error) {
    const message = (error as Error).message
    return { status: 200, body: { errors: [{ message }] }, problems: [`graphql: ${message}`] }
  }
  const invalid = validate(githubSchema(), document)
  if (invalid.length > 0) {
    const errors = invalid.map((e) => ({ message: e.message }))
    return { status: 200, body: { errors }, problems: errors.map((e) => `graphql: ${e.message}`) }
  }
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  )
  const fields = operations.flatMap((op) =>
    op.selectionSet.selections.flatMap((s) => (s.kind === Kind.FIELD ? [s.name.value] : [])),
  )
  const unserved = [...fields.filter((name) => !SERVED.has(name)), ...unmodelledRepositoryFields(operations)]
  if (unserved.length > 0) {
    const message = `the sandbox does not serve ${unserved.join(', ')}`
    return { status: 200, body: { errors: [{ message }] }, problems: [`graphql: ${message}`] }
  }

  const rootValue = {
    // Only an issue's pinned state is modelled (`unmodelledRepositoryFields` refuses any other field).
    repository: (args: { owner: string; name: string }) => {
      const { owner, name } = model.repo
      if (args.owner.toLowerCase() !== owner.login.toLowerCase() || args.name.toLowerCase() !== name.toLowerCase()) {
        throw Object.assign(
          new Error(`Could not resolve to a Repository with the name '${args.owner}/${args.name}'.`),
          { type: 'NOT_FOUND' },
        )
      }
      if (!can('issues', 'read')) {
        throw Object.assign(new Error('Resource not accessible by integration'), { type: 'FORBIDDEN' })
      }
      return {
        issue: (issueArgs: { number: number }) => {
          const target = model.issues.get(issueArgs.number)
          if (!target || target.pull) {
            throw Object.assign(new Error(`Could not resolve to an Issue with the number of ${issueArgs.number}.`), {
              type: 'NOT_FOUND',
            })
          }
          return { number: target.number, isPinned: target.pinned === true }
        },
      }
    },
    markPullRequestReadyForReview: (args: { input: { pullRequestId: string } }) => {
      if (!can('pull-requests', 'write')) {
        throw Object.assign(new Error('Resource not accessible by integration'), { type: 'FORBIDDEN' })
      }
      const id = args.input.pullRequestId
      const target = [...model.issues.values()].find((issue) => issue.pull && nodeId('PR', issue.pull.id) === id)
      if (!target?.pull)
        throw Object.assign(new Error(`Could not resolve to a node with the global id of '${id}'`), {
          type: 'NOT_FOUND',
        })
      target.pull.draft = false
      target.updatedAt = model.now()
      return { pullRequest: { id, number: target.number, isDraft: false, state: target.state.toUpperCase() } }
    },
    pinIssue: (args: { input: { issueId: string } }) => {
      if (!can('issues', 'write')) {
        throw Object.assign(new Error('Resource not accessible by integration'), { type: 'FORBIDDEN' })
      }
      const id = args.input.issueId
      // An issue's global id; a pull request's issue side is no Issue node.
      const target = [...model.issues.values()].find((issue) => !issue.pull && nodeId('I', issue.id) === id)
      if (!target)
        throw Object.assign(new Error(`Could not resolve to a node with the global id of '${id}'`), {
          type: 'NOT_FOUND',
        })
      const pinned = [...model.issues.values()].filter((issue) => issue.pinned)
      if (!target.pinned && pinned.length >= MAX_PINNED_ISSUES) {
        throw Object.assign(new Error(`A repository can have at most ${MAX_PINNED_ISSUES} pinned issues.`), {
          type: 'UNPROCESSABLE',
        })
      }
      target.pinned = true
      target.updatedAt = model.now()
      const issue = {
        id,
        number: target.number,
        title: target.title,
        isPinned: true,
        state: target.state.toUpperCase(),
      }
      return { issue }
    },
    unpinIssue: (args: { input: { issueId: string } }) => {
      if (!can('issues', 'write')) {
        throw Object.assign(new Error('Resource not accessible by integration'), { type: 'FORBIDDEN' })
      }
      const id = args.input.issueId
      const target = [...model.issues.values()].find((issue) => !issue.pull && nodeId('I', issue.id) === id)
      if (!target)
        throw Object.assign(new Error(`Could not resolve to a node with the global id of '${id}'`), {
          type: 'NOT_FOUND',
        })
      target.pinned = false
      target.updatedAt = model.now()
      return { id, issue: { id, number: target.number, isPinned: false } }
    },
  }
  const result = await graphql({
    schema: githubSchema(),
    source: request.query,
    rootValue,
    variableValues: (request.variables ?? {}) as Record<string, unknown>,
  })
  const errors = (result.errors ?? []).map((e) => ({
    ...typeOf(e.originalError),
    message: e.message,
    ...(e.path ? { path: e.path } : {}),
  }))
  return { status: 200, body: { data: result.data ?? null, ...(errors.length > 0 ? { errors } : {}) }, problems: [] }
}

/** The repository fields a query asks for beyond the one modelled, `issue { number isPinned }`. */
function unmodelledRepositoryFields(operations: OperationDefinitionNode[]): string[] {
  const fieldsOf = (node: { selectionSet?: SelectionSetNode | undefined }): FieldNode[] =>
    (node.selectionSet?.selections ?? []).filter((s): s is FieldNode => s.kind === Kind.FIELD)
  const modelled = new Set(['number', 'isPinned', '__typename'])
  const repositories = operations.flatMap((op) => fieldsOf(op).filter((f) => f.name.value === 'repository'))
  return repositories.flatMap((repository) =>
    fieldsOf(repository).flatMap((field) =>
      field.name.value === 'issue'
        ? fieldsOf(field)
            .filter((f) => !modelled.has(f.name.value))
            .map((f) => `repository.issue.${f.name.value}`)
        : [`repository.${field.name.value}`],
    ),
  )
}

/** GitHub's error `type` (FORBIDDEN, NOT_FOUND) that a resolver attached to its error. */
function typeOf(error: unknown): { type?: string } {
  const type = (error as { type?: unknown } | undefined)?.type
  return typeof type === 'string' ? { type } : {}
}
