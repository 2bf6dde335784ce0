#!/usr/bin/env node
// A deterministic scripted agent for the demo and the tests. It stands in for a coding agent
// (claude -p, codex exec, aider, ...): it reads the context the controller hands it
// (LOOP_CONTEXT_FILE) and repairs one thing the failure analysis points at, the way a focused agent
// would. Nothing in src/ knows about it.
//
// The repairs it knows are in repair-plan.mjs (shared with the scripted model behind the real agent
// CLIs in test/agents/).
// It writes usage to LOOP_OUTPUT_FILE like a real agent wrapper would, and exits 3 with a `BLOCKED:`
// line when it has nothing it can do for the failure it was given.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { relative, resolve } from 'node:path'
import { planRepair } from './repair-plan.mjs'

const contextFile = process.env.LOOP_CONTEXT_FILE
if (!contextFile) {
  console.error('agent: LOOP_CONTEXT_FILE is not set; run me from loop-controller')
  process.exit(2)
}
const context = JSON.parse(readFileSync(contextFile, 'utf8'))
const root = process.cwd()
const failure = context.failure
const say = (line) => console.log(`agent: ${line}`)

function report(changes) {
  if (process.env.LOOP_OUTPUT_FILE) {
    const tokens = 800 + 150 * changes
    writeFileSync(
      process.env.LOOP_OUTPUT_FILE,
      JSON.stringify({ usage: { tokens, costUsd: tokens * 0.000003 }, session: `demo-session-${context.iteration}` }),
    )
  }
}

say(`iteration ${context.iteration}, stage ${context.stage}, strategy ${context.strategy ?? 'none'}`)
if (!failure) {
  say('no failure to repair: the goal is already what the checks verify')
  report(0)
  process.exit(0)
}
say(`looking at ${failure.check}: ${failure.pattern ?? 'unclassified'} (${(failure.locations ?? []).length} locations)`)

const project = {
  root,
  read: (file) => {
    const path = resolve(root, file)
    return existsSync(path) ? readFileSync(path, 'utf8') : null
  },
  list: (folder) => {
    const path = resolve(root, folder)
    return existsSync(path) ? readdirSync(path) : []
  },
}
// One repair per iteration, like a focused agent.
const plan = planRepair(failure, project)
let changed = false
if (plan) {
  const path = resolve(root, plan.file)
  const before = readFileSync(path, 'utf8')
  const after = before.replace(plan.old, plan.new)
  if (after !== before) {
    writeFileSync(path, after)
    say(`edited ${relative(root, path)}`)
    changed = true
  }
}
report(changed ? 1 : 0)
if (!changed) {
  console.log(`BLOCKED: the scripted agent has no repair for ${failure.pattern ?? 'this failure'} in ${failure.check}`)
  process.exit(3)
}
