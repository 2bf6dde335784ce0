/**
 * Issue 17's real-project proof: each project, broken four ways, reaches COMPLETE under the controller in
 * the tree with the strict oracle agent, its lint/format defect fixed by the declared fix command without
 * an agent call. A project whose toolchain cannot be had is skipped with the reason.
 *
 * Issue 14's sharded checks on real runners, the README's recipes, are in shard-recipes.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { currentController, prepareToolchain, runLoop } from './harness.js'
import { PROJECTS } from './projects.js'

describe('real projects under the controller in the tree', () => {
  for (const project of PROJECTS) {
    const toolchain = prepareToolchain(project)
    const skip = typeof toolchain === 'string' ? toolchain : undefined
    if (skip) console.warn(`real project ${project.name} skipped: ${skip}`)
    it.skipIf(skip !== undefined)(`${project.name} (${project.ecosystem}) reaches COMPLETE`, async () => {
      if (typeof toolchain === 'string') return
      const outcome = await runLoop(project, currentController(), toolchain)
      const summary = `${outcome.status} at ${outcome.iterations}: ${outcome.statusReason}; defects ${JSON.stringify(outcome.defects)}`
      expect(outcome.status, summary).toBe('complete')
      expect(
        outcome.defects.every((d) => d.fixedBy !== 'not fixed'),
        summary,
      ).toBe(true)
      expect(outcome.lintFixedWithoutAgent, summary).toBe(true)
    })
  }
})
