import { spawn } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { FileStore, InvalidStateError, versionOf } from '../../../src/adapters/file-store.js'
import { StateQuarantinedError } from '../../../src/ports/store.js'
import { makeState } from '../stores/fixtures.js'
import { tempDir } from './helpers.js'

const root = tempDir('loop-file-store-')
const here = dirname(fileURLToPath(import.meta.url))

// The shared store contract runs against this store in test/integration/stores/file-store-contract.test.ts.
describe('FileStore', () => {
  it('keeps the state at <root>/<loopId>/loop-state.json with the sha256 of its bytes as version', async () => {
    const store = new FileStore({ root })
    const version = await store.save('plain', makeState('plain', 1), null)
    const bytes = readFileSync(join(root, 'plain', 'loop-state.json'))
    expect(version).toBe(versionOf(bytes))
    expect(JSON.parse(bytes.toString())).toEqual(makeState('plain', 1))
    expect(store.describe('plain')).toBe(join(root, 'plain'))
    // No temp or lock file is left behind.
    expect(readdirSync(join(root, 'plain'))).toEqual(['loop-state.json'])
  })

  it('names the file, the bad keys and what is expected when it quarantines', async () => {
    const now = () => new Date('2025-03-04T05:06:07.089Z')
    const store = new FileStore({ root, now })
    await store.save('named', makeState('named', 1), null)
    const file = join(root, 'named', 'loop-state.json')
    writeFileSync(file, JSON.stringify({ ...makeState('named', 1), iteration: 'three', stage: 'NOWHERE' }))
    const error = (await store.load('named').catch((e: unknown) => e)) as StateQuarantinedError
    expect(error).toBeInstanceOf(StateQuarantinedError)
    const aside = join(root, 'named', 'loop-state.invalid-2025-03-04T05-06-07.089Z.json')
    expect(error.quarantinedAt).toBe(aside)
    expect(error.message).toContain(file)
    expect(error.message).toContain(aside)
    expect(error.message).toMatch(/iteration: Invalid input: expected number, received string/)
    expect(error.message).toMatch(/stage: Invalid option: expected one of "INIT"/)
    expect(readFileSync(aside, 'utf8')).toContain('"three"')
    // The same second again gets a file of its own rather than overwriting the first.
    await store.reset('named')
    await store.save('named', makeState('named', 1), null)
    writeFileSync(file, 'not json')
    const again = (await store.load('named').catch((e: unknown) => e)) as StateQuarantinedError
    expect(again.quarantinedAt).toBe(aside.replace('.json', '-2.json'))
    expect(again.message).toMatch(/not JSON/)
  })

  it('lists its loops read only: a state that is not valid and one quarantined stay rows, nothing moved', async () => {
    const listRoot = tempDir('loop-file-store-list-')
    const store = new FileStore({ root: listRoot, now: () => new Date('2025-03-04T05:06:07.089Z') })
    await store.save('good', makeState('good', 1), null)
    await store.save('held', makeState('held', 1), null)
    writeFileSync(join(listRoot, 'held', 'loop-state.json'), '{ "loopId": "held" }')
    await expect(store.load('held')).rejects.toBeInstanceOf(StateQuarantinedError)
    await store.save('bad', makeState('bad', 1), null)
    writeFileSync(join(listRoot, 'bad', 'loop-state.json'), '{ not json')
    const folders = () => ['bad', 'good', 'held'].map((loopId) => readdirSync(join(listRoot, loopId)).sort())
    const before = folders()

    const first = await store.readLoops()
    expect(await store.readLoops()).toEqual(first)
    expect(folders()).toEqual(before)
    expect(first.map((loop) => [loop.loopId, loop.state?.iteration ?? null])).toEqual([
      ['bad', null],
      ['good', 1],
      ['held', null],
    ])
    expect(first[0]?.problem).toMatch(/^not a valid loop state: it is not JSON \(.+\) \(.+bad\/loop-state\.json\)$/)
    expect(first[2]?.problem).toMatch(
      /^quarantined \(.+\); kept at .+held\/loop-state\.invalid-2025-03-04T05-06-07\.089Z\.json: fix it and move it back, or reset the loop$/,
    )
  })

  it('never writes a state that fails validation', async () => {
    const store = new FileStore({ root })
    const version = await store.save('guarded', makeState('guarded', 1), null)
    const broken = { ...makeState('guarded', 2), status: 'sleeping' } as unknown as ReturnType<typeof makeState>
    await expect(store.save('guarded', broken, version)).rejects.toThrow(InvalidStateError)
    await expect(store.save('guarded', broken, version)).rejects.toThrow(/status: Invalid option/)
    expect((await store.load('guarded'))?.version).toBe(version)
  })

  it('refuses a loop id that is not a plain folder name', async () => {
    const store = new FileStore({ root })
    await expect(store.load('../escape')).rejects.toThrow(/Loop id '..\/escape' is not usable as a folder name/)
  })

  it('breaks a lock left by a crashed writer', async () => {
    const store = new FileStore({ root, lockStaleMs: 60_000 })
    const version = await store.save('crashed', makeState('crashed', 1), null)
    // A lock from a process that no longer exists on this host.
    writeFileSync(join(root, 'crashed', 'loop-state.lock'), `${(await import('node:os')).hostname()} 999999 dead`)
    await expect(store.save('crashed', makeState('crashed', 2), version)).resolves.toMatch(/^[0-9a-f]{64}$/)
  })
})

/** Starts `count` race-saver processes, releases them at once, and returns their JSON reports. */
async function race(mode: string, processes: number, count: number, dir: string): Promise<unknown[]> {
  const go = join(dir, `go-${mode}`)
  const children = Array.from({ length: processes }, () =>
    spawn(
      process.execPath,
      ['--import', 'tsx', join(here, 'fixtures', 'race-saver.ts'), dir, mode, String(count), go],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    ),
  )
  const reports = children.map(
    (child) =>
      new Promise<unknown>((resolve, reject) => {
        let out = ''
        let err = ''
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString()
        })
        child.stderr.on('data', (chunk: Buffer) => {
          err += chunk.toString()
        })
        child.on('close', (code) => {
          if (code !== 0) reject(new Error(`race-saver exited ${code}: ${err}`))
          else resolve(JSON.parse(out.split('\n').filter(Boolean).at(-1) ?? ''))
        })
      }),
  )
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          const onData = (chunk: Buffer) => {
            if (chunk.toString().includes('ready')) {
              child.stdout.off('data', onData)
              resolve()
            }
          }
          child.stdout.on('data', onData)
        }),
    ),
  )
  writeFileSync(go, '')
  return Promise.all(reports)
}

describe('FileStore with processes racing', () => {
  it('loses no update when processes race load-increment-save', async () => {
    const dir = tempDir('loop-race-inc-')
    await new FileStore({ root: dir }).save('counter', makeState('counter', 0), null)
    const reports = (await race('increment', 3, 25, dir)) as Array<{ wins: number; conflicts: number }>
    expect(reports.map((r) => r.wins)).toEqual([25, 25, 25])
    const final = await new FileStore({ root: dir }).load('counter')
    expect(final?.state.iteration).toBe(75)
    // The race was real: some saves met a newer version and were refused.
    expect(reports.reduce((sum, r) => sum + r.conflicts, 0)).toBeGreaterThan(0)
  })

  it('lets exactly one process create each new loop', async () => {
    const dir = tempDir('loop-race-new-')
    const rounds = 100
    const reports = (await race('create', 3, rounds, dir)) as Array<{ won: number[] }>
    const wins = reports.flatMap((r) => r.won).sort((a, b) => a - b)
    expect(wins).toEqual([...Array(rounds).keys()])
  })
})
