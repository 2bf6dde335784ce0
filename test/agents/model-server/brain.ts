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
export type Done = ('read' | 'edit')[]

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
  if (!done.includes('read')) return { kind: 'read', file: plan.file }
  if (!done.includes('edit')) return { kind: 'edit', plan }
  return { kind: 'done', text: `Repaired ${plan.file}: the failing check should pass now.` }
}

/** Tokens for a text, roughly as a tokenizer counts English and code. */
export function tokensOf(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4))
}
