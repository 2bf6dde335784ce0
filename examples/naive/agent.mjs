#!/usr/bin/env node
// A scripted agent that can repair everything in the benchmark examples (examples/demo and
// examples/lint-only), used by the agent-calls benchmark (bench/agent-calls.ts) for both the controller's
// loop and the naive loop, so that the two differ only in the loop config. Like a focused agent it makes
// one repair per call, for the failure the controller hands it (LOOP_CONTEXT_FILE):
//   - lint-error / format-error: runs the formatter or linter with --write, as a person would;
//   - import-not-found for a package the project vendors under vendor/NAME: copies it into node_modules;
//   - test-failure it has no answer for: reads the code, finds no defect, changes nothing (a flaky test
//     passes on the next verification);
//   - anything else: hands over to the scripted agent (examples/agent/agent.mjs).
// Each call is counted in LOOP_AGENT_CALLS (a file) when that is set.
import { spawnSync } from 'node:child_process'
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const contextFile = process.env.LOOP_CONTEXT_FILE
if (!contextFile) {
  console.error('agent: LOOP_CONTEXT_FILE is not set; run me from loop-controller')
  process.exit(2)
}
if (process.env.LOOP_AGENT_CALLS) appendFileSync(process.env.LOOP_AGENT_CALLS, '1\n')
const context = JSON.parse(readFileSync(contextFile, 'utf8'))
const failure = context.failure
const root = process.cwd()
const say = (line) => console.log(`agent: ${line}`)

function report(changes) {
  if (process.env.LOOP_OUTPUT_FILE) {
    const tokens = 800 + 150 * changes
    writeFileSync(
      process.env.LOOP_OUTPUT_FILE,
      JSON.stringify({ usage: { tokens, costUsd: tokens * 0.000003 }, session: `naive-session-${context.iteration}` }),
    )
  }
}

function runTool(argv) {
  say(`running ${argv.join(' ')}`)
  const result = spawnSync(argv[0], argv.slice(1), { cwd: root, stdio: 'inherit' })
  return result.status === 0
}

/** Runs the scripted agent; its output is passed on, except a BLOCKED line this agent overrides. */
function scriptedAgent() {
  const result = spawnSync(process.execPath, [join(here, '..', 'agent', 'agent.mjs')], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['inherit', 'pipe', 'inherit'],
  })
  const code = result.status ?? 1
  const overridden = code === 3 && failure.pattern === 'test-failure'
  for (const line of (result.stdout ?? '').split('\n')) {
    if (line && !(overridden && line.startsWith('BLOCKED:'))) console.log(line)
  }
  return code
}

say(
  `iteration ${context.iteration}: ${failure ? `${failure.check} (${failure.pattern ?? 'unclassified'})` : 'no failure'}`,
)
if (!failure) {
  report(0)
  process.exit(0)
}

const missing = /Cannot find (?:package|module) '([^'./][^']*)'/.exec(
  [failure.excerpt, ...(failure.locations ?? []).map((l) => l.message)].join('\n'),
)
if (failure.pattern === 'format-error') {
  runTool(['biome', 'format', '--write', 'src', 'test'])
  report(1)
} else if (failure.pattern === 'lint-error') {
  runTool(['biome', 'lint', '--write', '--unsafe', 'src', 'test'])
  report(1)
} else if (failure.pattern === 'import-not-found' && missing && existsSync(join(root, 'vendor', missing[1]))) {
  const name = missing[1]
  say(`installing the vendored package ${name}`)
  mkdirSync(join(root, 'node_modules'), { recursive: true })
  cpSync(join(root, 'vendor', name), join(root, 'node_modules', name), { recursive: true })
  report(1)
} else {
  const code = scriptedAgent()
  if (code === 3 && failure.pattern === 'test-failure') {
    say('read the failing test and the code under test: no defect found; the test looks flaky, nothing changed')
    report(0)
    process.exit(0)
  }
  process.exit(code)
}
