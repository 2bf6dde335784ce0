// For the vitest proofs: record a test file's figures after its tests, with how many of them failed
// (docs/reliability-results.json, only when LOOP_RECORD_RESULTS=1; see results.ts).
import { afterAll, afterEach } from 'vitest'
import { recordResults } from './results.js'

/** Registers the hooks; `figures` is read after the last test, so a test fills it in as it passes. */
export function recordProof(proof: string, figures: () => Record<string, unknown>): void {
  let failed = 0
  afterEach((context) => {
    if (context.task.result?.state === 'fail') failed++
  })
  afterAll(() => recordResults(proof, { ...figures(), failed }))
}
