#!/usr/bin/env node
// Extracts the few REST operations the sandbox serves from GitHub's official OpenAPI description
// (`@octokit/openapi`, 385 MB installed) into test/sandbox/openapi-subset.json, so the tests validate
// against GitHub's own schemas without carrying the whole package.
//
// Usage: npm install --no-save @octokit/openapi && node scripts/extract-openapi.mjs
//
// The output keeps `$ref`s to `#/components/schemas/NAME` (shared schemas such as `simple-user` would
// otherwise be copied dozens of times, and some are recursive) and carries every schema they reach.
// Parameters, request bodies and responses are resolved inline. Descriptions and examples are dropped.
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The operations the sandbox's REST stand-in serves, by GitHub's operationId. */
export const SERVED_OPERATIONS = [
  'actions/create-workflow-dispatch',
  'actions/get-workflow-run',
  'actions/get-actions-cache-list',
  'actions/delete-actions-cache-by-key',
  'actions/delete-actions-cache-by-id',
  'actions/list-artifacts-for-repo',
  'actions/list-workflow-run-artifacts',
  'actions/get-artifact',
  'actions/delete-artifact',
  'actions/download-artifact',
  'apps/get-authenticated',
  'issues/add-labels',
  'issues/create',
  'issues/create-comment',
  'issues/get',
  'issues/list-comments',
  'issues/list-labels-on-issue',
  'issues/remove-label',
  'issues/update',
  'issues/update-comment',
  'pulls/check-if-merged',
  'pulls/create',
  'pulls/get',
  'pulls/list',
  'pulls/list-reviews',
  'pulls/merge',
  'pulls/update',
  'rate-limit/get',
  'repos/get',
  'repos/get-collaborator-permission-level',
  'users/get-authenticated',
]

// Keys that only document; the validator never reads them and they are most of the file's weight.
const DROPPED_KEYS = new Set([
  'description',
  'example',
  'examples',
  'externalDocs',
  'x-github',
  'x-github-breaking-changes',
  'summary',
  'title',
])

const here = dirname(fileURLToPath(import.meta.url))
const outPath = join(here, '..', 'test', 'sandbox', 'openapi-subset.json')

const require = createRequire(import.meta.url)
let specPath
try {
  specPath = join(dirname(require.resolve('@octokit/openapi/package.json')), 'generated', 'api.github.com.json')
} catch {
  console.error(
    "extract-openapi: the package '@octokit/openapi' is not installed. Run 'npm install --no-save @octokit/openapi' first.",
  )
  process.exit(1)
}
const spec = JSON.parse(readFileSync(specPath, 'utf8'))

/** Follows a local `#/components/...` pointer. */
function lookup(ref) {
  if (!ref.startsWith('#/')) throw new Error(`extract-openapi: unsupported $ref '${ref}'; expected a local pointer`)
  let node = spec
  for (const part of ref.slice(2).split('/')) {
    node = node?.[part.replaceAll('~1', '/').replaceAll('~0', '~')]
    if (node === undefined) throw new Error(`extract-openapi: $ref '${ref}' points nowhere`)
  }
  return node
}

const neededSchemas = new Set()

/** Copies a schema, dropping documentation and recording the component schemas it references. */
function copySchema(node) {
  if (Array.isArray(node)) return node.map(copySchema)
  if (node === null || typeof node !== 'object') return node
  if (typeof node.$ref === 'string') {
    if (node.$ref.startsWith('#/components/schemas/')) {
      neededSchemas.add(node.$ref.slice('#/components/schemas/'.length))
      return { $ref: node.$ref }
    }
    return copySchema(lookup(node.$ref))
  }
  const out = {}
  for (const [key, value] of Object.entries(node)) {
    // `properties` maps names to schemas: a property may itself be named 'description' or 'title'.
    if (key === 'properties') {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, copySchema(schema)]))
    } else if (!DROPPED_KEYS.has(key)) {
      out[key] = copySchema(value)
    }
  }
  return out
}

/** Resolves a `$ref` at the top of a parameter, body or response object (not inside a schema). */
const deref = (node) => (node && typeof node.$ref === 'string' ? deref(lookup(node.$ref)) : node)

function jsonSchemaOf(content) {
  const media = content?.['application/json'] ?? content?.['application/scim+json']
  return media?.schema ? copySchema(media.schema) : undefined
}

const operations = {}
for (const [path, item] of Object.entries(spec.paths)) {
  for (const [method, rawOperation] of Object.entries(item)) {
    if (!SERVED_OPERATIONS.includes(rawOperation?.operationId)) continue
    const parameters = [...(item.parameters ?? []), ...(rawOperation.parameters ?? [])].map(deref).map((p) => ({
      name: p.name,
      in: p.in,
      required: p.required === true,
      schema: copySchema(p.schema ?? {}),
    }))
    const body = deref(rawOperation.requestBody)
    const responses = {}
    for (const [status, rawResponse] of Object.entries(rawOperation.responses ?? {})) {
      const response = deref(rawResponse)
      responses[status] = { schema: jsonSchemaOf(response.content) ?? null }
    }
    operations[`${method.toUpperCase()} ${path}`] = {
      operationId: rawOperation.operationId,
      parameters,
      requestBody: body ? { required: body.required === true, schema: jsonSchemaOf(body.content) ?? null } : null,
      responses,
    }
  }
}

const missing = SERVED_OPERATIONS.filter((id) => !Object.values(operations).some((op) => op.operationId === id))
if (missing.length > 0) throw new Error(`extract-openapi: operations not found in the spec: ${missing.join(', ')}`)

// Component schemas reference further component schemas: copy until closed.
const schemas = {}
const pending = [...neededSchemas]
while (pending.length > 0) {
  const name = pending.pop()
  if (name in schemas) continue
  const before = new Set(neededSchemas)
  schemas[name] = copySchema(spec.components.schemas[name])
  for (const added of neededSchemas) if (!before.has(added)) pending.push(added)
}

const sortedOperations = Object.fromEntries(Object.entries(operations).sort(([a], [b]) => a.localeCompare(b)))
const sortedSchemas = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)))
const subset = {
  source: `@octokit/openapi ${spec.info.version} (${spec.openapi}), generated/api.github.com.json`,
  generatedBy: 'scripts/extract-openapi.mjs',
  operations: sortedOperations,
  components: { schemas: sortedSchemas },
}
writeFileSync(outPath, `${JSON.stringify(subset, null, 1)}\n`)
console.log(
  `extract-openapi: wrote ${Object.keys(sortedOperations).length} operations and ${Object.keys(sortedSchemas).length} schemas to ${outPath}`,
)
