import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { AuditTrail } from '../../../src/adapters/audit-trail.js'
import type { JourneyEvent } from '../../../src/domain/journey.js'
import { tempDir } from './helpers.js'

const root = tempDir('loop-audit-')
let counter = 0
const redact = (text: string) => text.replaceAll('hunter2', '***')
const trail = () => new AuditTrail(join(root, `loop-${++counter}`), redact)
const event = (iteration: number, message: string, data?: Record<string, unknown>): JourneyEvent => ({
  at: `2025-01-01T00:00:0${iteration}.000Z`,
  iteration,
  type: 'check',
  message,
  ...(data ? { data } : {}),
})

describe('AuditTrail', () => {
  it('appends events as JSON lines and reads them back, redacted', async () => {
    const audit = trail()
    expect(await audit.readEvents()).toEqual([])
    await audit.appendEvents([event(1, 'build failed: password hunter2'), event(1, 'two')])
    await audit.appendEvents([event(2, 'three', { env: { PASSWORD: 'hunter2' }, list: ['hunter2', 3] })])
    await audit.appendEvents([])
    const text = readFileSync(join(audit.dir, 'journey-log.jsonl'), 'utf8')
    expect(text.split('\n')).toHaveLength(4)
    expect(text).not.toContain('hunter2')
    expect(await audit.readEvents()).toEqual([
      event(1, 'build failed: password ***'),
      event(1, 'two'),
      event(2, 'three', { env: { PASSWORD: '***' }, list: ['***', 3] }),
    ])
  })

  it('ignores a torn last line and never glues the next record to it', async () => {
    const audit = trail()
    await audit.appendEvents([event(1, 'whole')])
    appendFileSync(join(audit.dir, 'journey-log.jsonl'), '{"at":"2025-01-01T00:00:02.000Z","iteration":2,"ty')
    expect(await audit.readEvents()).toEqual([event(1, 'whole')])
    await audit.appendEvents([event(3, 'after the crash')])
    expect(await audit.readEvents()).toEqual([event(1, 'whole'), event(3, 'after the crash')])
  })

  it('keeps every line whole when many writers append at once', async () => {
    const audit = trail()
    const big = 'x'.repeat(20_000)
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        new AuditTrail(audit.dir, redact).appendEvents([event(i % 10, `${i} ${big}`)]),
      ),
    )
    const events = await audit.readEvents()
    expect(events).toHaveLength(40)
    expect(new Set(events.map((e) => e.message.split(' ')[0])).size).toBe(40)
  })

  it('writes iteration, final and dead-letter files, redacted, with safe names', async () => {
    const audit = trail()
    await audit.writeIteration(3, '# Iteration 3\nsecret hunter2\n')
    await audit.writeIteration(3, '# Iteration 3, rewritten\n')
    await audit.writeFinal('# Complete\n')
    await audit.writeDeadLetter('test-failure:ts:ab12cd', '# Dead letter hunter2\n', 'id: new-pattern\n')
    await audit.writeDeadLetter('lint-error:../../x:00', '# another\n')
    expect(readFileSync(join(audit.dir, 'iterations', '3.md'), 'utf8')).toBe('# Iteration 3, rewritten\n')
    expect(readFileSync(join(audit.dir, 'final.md'), 'utf8')).toBe('# Complete\n')
    expect(readdirSync(join(audit.dir, 'dead-letters')).sort()).toEqual([
      'lint-error_.._.._x_00.md',
      'test-failure_ts_ab12cd.md',
      'test-failure_ts_ab12cd.pattern.yml',
    ])
    expect(readFileSync(join(audit.dir, 'dead-letters', 'test-failure_ts_ab12cd.md'), 'utf8')).toBe(
      '# Dead letter ***\n',
    )
    expect(readdirSync(join(audit.dir, 'iterations'))).toEqual(['3.md'])
    await expect(audit.writeIteration(-1, 'x')).rejects.toThrow('got -1')
  })

  it('copies a log redacted, even where a secret straddles read chunks', async () => {
    const audit = trail()
    const source = join(root, 'source.log')
    // 64 KiB read chunks: put the secret across the first boundary, and a long line without a newline at the end.
    const lead = 'a'.repeat(64 * 1024 - 3)
    writeFileSync(source, `${lead}hunter2 tail\nline two hunter2\n${'é'.repeat(40_000)}no newline hunter2`)
    const copy = await audit.copyLog('unit-tests', 4, source)
    expect(copy).toBe(join(audit.dir, 'logs', '4', 'unit-tests.log'))
    const text = readFileSync(copy, 'utf8')
    expect(text).not.toContain('hunter2')
    expect(text).toBe(`${lead}*** tail\nline two ***\n${'é'.repeat(40_000)}no newline ***`)
  })
})
