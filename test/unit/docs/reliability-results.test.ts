// The reliability proofs record their figures only when their npm script asks (LOOP_RECORD_RESULTS=1), so
// `npm test` writes nothing in the repository; each proof's key is replaced, the others kept.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { recordResults } from '../../reliability/results.js'

afterEach(() => {
  vi.unstubAllEnvs()
})

describe('recordResults', () => {
  it('writes nothing unless LOOP_RECORD_RESULTS=1', () => {
    vi.stubEnv('LOOP_RECORD_RESULTS', '')
    const file = join(mkdtempSync(join(tmpdir(), 'reliability-results-')), 'results.json')
    recordResults('races', { rounds: 4, failed: 0 }, file)
    expect(existsSync(file)).toBe(false)
  })

  it('records a proof with its date and machine, replacing only its own key', () => {
    vi.stubEnv('LOOP_RECORD_RESULTS', '1')
    const file = join(mkdtempSync(join(tmpdir(), 'reliability-results-')), 'results.json')
    recordResults('races', { rounds: 4, failed: 0 }, file)
    recordResults('crash', { kills: 6, failed: 1 }, file)
    recordResults('races', { rounds: 12, failed: 0 }, file)
    const results = JSON.parse(readFileSync(file, 'utf8'))
    expect(Object.keys(results)).toEqual(['crash', 'races'])
    expect(results.crash).toMatchObject({ kills: 6, failed: 1 })
    expect(results.races).toMatchObject({ rounds: 12, failed: 0 })
    expect(Number.isNaN(Date.parse(results.races.date))).toBe(false)
    expect(results.races.machine).toMatch(/cores, node v\d+/)
    expect(existsSync(`${file}.lock`)).toBe(false)
  })
})
