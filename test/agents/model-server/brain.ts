/**
 * The scripted model: what a capable model would do with the loop's prompt, as a plan of the agent
 * CLI's own tool calls. It reads the failure the prompt describes ("What failed"), finds the repair
 * the demo's scripted agent would make (examples/agent/repair-plan.mjs), and asks the CLI to read the
 * file, then to edit it, then says it is done. The CLI applies the edit with its own tools.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
// @ts-expect-error: a plain ES module shared with the scripted agent, without types.
import { failureFromPrompt, planRepair } from '../../../examples/agent/repair-plan.mjs'

export interface RepairPlan {
  file: string
  old: string
  new: string
}

/** One step of the model's answer. */
export type Step = { kind: 'read'; file: string } | { kind: 'edit'; plan: RepairPlan } | { kind: 'done'; text: string }

/** What the CLI has done since the loop's prompt, in order (tool names in the brain's terms). */
export type Done = ('read' | 'edit' | 'edit-failed')[]

/** The repair for a loop prompt in the workspace `root`, or null when the model has none. */
export function repairFor(prompt: string, root: string): RepairPlan | null {
  const failure = failureFromPrompt(prompt)
  if (!failure) return null
  const project = {
    root,
    read: (file: string) => {
      const path = resolve(root, file)
      return existsSync(path) ? readFileSync(path, 'utf8') : null
    },
    list: (folder: string) => {
      const path = resolve(root, folder)
      return existsSync(path) ? readdirSync(path) : []
    },
  }
  return planRepair(failure, project) as RepairPlan | null
}

/** The next step after `done`, for the plan the prompt calls for. */
export function nextStep(plan: RepairPlan | null, done: Done): Step {
  if (!plan) return { kind: 'done', text: 'I found nothing I can repair for this failure.' }
  // A model whose edit the CLI refused says so and stops, as a real one would after a try or two.
  if (done.filter((d) => d === 'edit-failed').length >= 2)
    return { kind: 'done', text: `I could not edit ${plan.file}: the tool refused the change.` }
  if (!done.includes('read')) return { kind: 'read', file: plan.file }
  if (!done.includes('edit')) return { kind: 'edit', plan }
  return { kind: 'done', text: `Repaired ${plan.file}: the failing check should pass now.` }
}

/** Tokens for a text, roughly as a tokenizer counts English and code. */
export function tokensOf(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4))
}

/**
 * The plan as whole lines of the file, for tools that patch lines (Codex's `apply_patch`): the lines
 * that hold the old text, and the same lines with it replaced.
 */
export function planLines(root: string, plan: RepairPlan): { old: string[]; new: string[] } | null {
  const path = resolve(root, plan.file)
  if (!existsSync(path)) return null
  const text = readFileSync(path, 'utf8')
  const oldText = plan.old.replace(/\n$/, '')
  const at = text.indexOf(oldText)
  if (at < 0) return null
  const start = text.lastIndexOf('\n', at - 1) + 1
  const newline = text.indexOf('\n', at + oldText.length)
  const lines = text.slice(start, newline < 0 ? text.length : newline)
  return { old: lines.split('\n'), new: lines.replace(oldText, plan.new.replace(/\n$/, '')).split('\n') }
}
