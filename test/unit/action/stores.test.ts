// The store the `store` input names, and the lazy, once-only restore of the audit trail.
import { describe, expect, it } from 'vitest'
import { buildRunContext } from '../../../src/action/run-context.js'
import { auditRestorer, createStore } from '../../../src/action/stores.js'
import { recordingLogger } from './fakes.js'

function runOf(store: string, env: Record<string, string> = { GITHUB_REPOSITORY: 'o/r', GITHUB_RUN_ID: '7' }) {
  return buildRunContext({
    env,
    event: { eventName: 'workflow_dispatch', payload: {}, runId: 7 },
    getInput: (name) => ({ 'github-token': 'tok', store })[name] ?? '',
    cwd: '/',
  })
}

const where = { runnerTemp: '/tmp/runner', root: '/tmp/ws', loopDir: '/tmp/runner/audit/l1' }

describe('createStore', () => {
  it.each([
    { store: 'auto', kind: 'auto', carriesAudit: true },
    { store: 'cache', kind: 'cache', carriesAudit: false },
    { store: 'artifact', kind: 'artifact', carriesAudit: true },
    { store: 'git', kind: 'git', carriesAudit: true },
  ])('makes the $store store', async ({ store, kind, carriesAudit }) => {
    const created = await createStore({ run: runOf(store), ...where, logger: recordingLogger() })
    expect(created.store.kind).toBe(kind)
    expect(created.auditSource !== null).toBe(carriesAudit)
  })

  it('needs the run id for the artifact store', async () => {
    await expect(
      createStore({ run: runOf('artifact', { GITHUB_REPOSITORY: 'o/r' }), ...where, logger: recordingLogger() }),
    ).rejects.toThrow('GITHUB_RUN_ID is not set')
  })
})

describe('auditRestorer', () => {
  it('restores once, however often it is asked', async () => {
    let calls = 0
    const logger = recordingLogger()
    const restore = auditRestorer(
      {
        restoreAudit: async () => {
          calls++
          return 3
        },
      },
      'l1',
      '/audit',
      logger,
    )
    await Promise.all([restore(), restore()])
    await restore()
    expect(calls).toBe(1)
    expect(logger.lines).toEqual(['info: Audit trail: 3 file(s) restored from the newest snapshot.'])
  })

  it('warns and goes on when the trail cannot be restored', async () => {
    const logger = recordingLogger()
    const restore = auditRestorer(
      {
        restoreAudit: async () => {
          throw new Error('download failed')
        },
      },
      'l1',
      '/audit',
      logger,
    )
    await restore()
    expect(logger.lines).toEqual([
      'warning: Audit trail not restored from the newest snapshot (it starts afresh here): download failed',
    ])
  })

  it('does nothing for a store without a trail', async () => {
    const logger = recordingLogger()
    await auditRestorer(null, 'l1', '/audit', logger)()
    expect(logger.lines).toEqual([])
  })
})
