/**
 * Issue 17's real-project proof: each project, broken four ways, reaches COMPLETE under the controller in
 * the tree with the strict oracle agent, its lint/format defect fixed by the declared fix command without
 * an agent call. A project whose toolchain cannot be had is skipped with the reason.
 *
 * Issue 14's sharded checks on a real runner: ufo's own vitest suite split by vitest's `--shard` into
 * three legs, each writing its JUnit report; the failing tests live in one shard, the legs merge into
 * one `test` check, and the loop still reaches COMPLETE.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
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

const SHARDED_TEST = [
  '    shards: 3',
  '    run: vitest run --shard={shard}/{shards} --reporter=default --reporter=junit --outputFile.junit=reports/junit-{shard}.xml',
  '    junit: reports/junit-{shard}.xml',
].join('\n')

describe('a sharded check on a real test runner', () => {
  const ufo = PROJECTS.find((project) => project.name === 'ufo')
  const toolchain = ufo ? prepareToolchain(ufo) : 'ufo is not among the projects'
  const skip = typeof toolchain === 'string' ? toolchain : undefined
  it.skipIf(skip !== undefined)('ufo with `vitest run --shard={shard}/3` reaches COMPLETE', async () => {
    if (!ufo || typeof toolchain === 'string') return
    const outcome = await runLoop(ufo, currentController(), toolchain, {
      config: (yaml) => {
        const sharded = yaml.replace('    run: vitest run\n', `${SHARDED_TEST}\n`)
        if (sharded === yaml) throw new Error("ufo's loop.yml no longer has the `run: vitest run` line to shard")
        return sharded
      },
    })
    const summary = `${outcome.status} at ${outcome.iterations}: ${outcome.statusReason}`
    expect(outcome.status, summary).toBe('complete')
    // The baseline's failing tests came from one leg of the three, and the merged check named it.
    const context = JSON.parse(readFileSync(join(outcome.repo, '.loop', 'main', 'runs', '1', 'context.json'), 'utf8'))
    const test = context.failures.find((failure: { check: string }) => failure.check === 'test')
    expect(test?.excerpt, JSON.stringify(context.failures)).toMatch(/^### test shard [123]\/3: fail\n/)
    expect(test.locations.map((location: { file: string }) => location.file)).toContain('test/trailing-slash.test.ts')
    // Every leg wrote its own JUnit report, and the passing run read all three (174 tests in ufo's suite).
    const reports = [1, 2, 3].map((shard) => readFileSync(join(outcome.repo, 'reports', `junit-${shard}.xml`), 'utf8'))
    const counts = reports.map((xml) => Number(/<testsuites [^>]*tests="(\d+)"/.exec(xml)?.[1] ?? Number.NaN))
    expect(
      counts.every((count) => count > 0),
      String(counts),
    ).toBe(true)
  })
})
