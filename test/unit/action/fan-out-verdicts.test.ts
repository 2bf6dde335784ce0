import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { readVerdicts } from '../../../src/action/fan-out-verdicts.js'

let dir = ''
afterEach(() => rmSync(dir, { recursive: true, force: true }))

function verdictText(leg: string): string {
  const run = { exitCode: 0, signal: null, timedOut: false, durationMs: 5, output: '', totalBytes: 0, truncated: false }
  return `${JSON.stringify({ version: 2, loopId: 'loop', iteration: 1, candidate: 'c'.repeat(40), leg, check: leg, run })}\n`
}

/** An artifact folder as download-artifact leaves it: `<dir>/<name>/<artifact>.json`. */
function artifact(name: string, file: string, text: string): void {
  mkdirSync(join(dir, name), { recursive: true })
  writeFileSync(join(dir, name, file), text)
}

describe('readVerdicts', () => {
  it("reads the config's legs alone: 300 artifacts of no leg (a leg's junk uploads) are left unread, not the end of decide", async () => {
    dir = mkdtempSync(join(tmpdir(), 'verdicts-'))
    const unit = verdictText('unit')
    artifact('loop-verdict-unit.attempt-1', 'loop-verdict-unit.json', unit)
    for (let index = 0; index < 300; index++) {
      artifact(`loop-verdict-junk-${index}.attempt-1`, `loop-verdict-junk-${index}.json`, verdictText(`junk-${index}`))
    }
    const read = await readVerdicts(dir, { attempt: 1, artifacts: new Set(['loop-verdict-unit', 'loop-verdict-lint']) })
    expect(read.verdicts.map((v) => v.leg)).toEqual(['unit'])
    expect(read.digests).toEqual(new Map([['loop-verdict-unit', createHash('sha256').update(unit).digest('hex')]]))
    expect(read.attempts).toEqual(new Map([['loop-verdict-unit', 1]]))
    expect(read.foreign).toHaveLength(300)
    expect(read.foreign).toContain('loop-verdict-junk-299.attempt-1')
    expect(read.unreadable).toEqual(new Map())
  })
})
