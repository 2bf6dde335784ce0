// The artifact store's trail bookkeeping on its own (artifact-trail.ts): what a save stages, which
// snapshot its manifest builds on, and how a lineage of manifests adds up to the whole trail.
import { mkdtempSync } from 'node:fs'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  chooseAnchor,
  type ResolvedTrail,
  resolveTrail,
  type StoredTrail,
  stageTrail,
  storedTrailFor,
} from '../../../src/adapters/stores/artifact-trail.js'

const base = mkdtempSync(join(tmpdir(), 'artifact-trail-'))
afterAll(() => rm(base, { recursive: true, force: true }))

let folders = 0
async function folderWith(files: Record<string, string>): Promise<string> {
  const folder = join(base, `f${++folders}`)
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(folder, path, '..'), { recursive: true })
    await writeFile(join(folder, path), text)
  }
  return folder
}

describe('stageTrail', () => {
  it('stages a new file whole, only the new end of a file that grew, and nothing of one unchanged', async () => {
    const first = await stageTrail(
      await folderWith({ 'log.jsonl': 'one\n', 'a.md': 'A' }),
      { files: {} },
      () => false,
      join(base, 'up1'),
    )
    expect(first.stagedBytes).toBe(5)
    // As a later save sees it: the parts are in snapshot 7 now.
    const stored = {
      files: Object.fromEntries(
        Object.entries(first.manifest.files).map(([path, entry]) => [
          path,
          { ...entry, parts: entry.parts.map(([, bytes]) => [7, bytes] as [number, number]) },
        ]),
      ),
    }
    const upload = join(base, 'up2')
    const second = await stageTrail(
      await folderWith({ 'log.jsonl': 'one\ntwo\n', 'a.md': 'A', 'b.md': 'BB' }),
      stored,
      () => false,
      upload,
    )
    expect(second.stagedBytes).toBe(4 + 2)
    expect(second.manifest.files['log.jsonl']?.parts).toEqual([
      [7, 4],
      [0, 4],
    ])
    expect(second.manifest.files['a.md']?.parts).toEqual([[7, 1]])
    expect(await readFile(join(upload, 'trail', 'log.jsonl'), 'utf8')).toBe('two\n')
    // A rewritten file (not an append) is staged whole; a part in a snapshot going away is staged again.
    const third = await stageTrail(
      await folderWith({ 'log.jsonl': 'ONE\ntwo\n', 'a.md': 'A' }),
      stored,
      (id) => id === 7,
      join(base, 'up3'),
    )
    expect(third.manifest.files['log.jsonl']?.parts).toEqual([[0, 8]])
    expect(third.manifest.files['a.md']?.parts).toEqual([[0, 1]])
  })
})

describe('the lineage of manifests', () => {
  const entry = (id: number) => ({ size: 1, sha256: `h${id}`, parts: [[id, 1]] as Array<[number, number]> })
  const manifests = new Map<number, StoredTrail>([
    [1, { base: null, files: { 'one.md': entry(1), 'gone.md': entry(1) } }],
    [3, { base: 1, files: { 'three.md': entry(3), 'gone.md': null } }],
    [4, { base: 3, files: { 'one.md': entry(4) } }],
  ])
  const open = async (id: number) => manifests.get(id) ?? null

  it('adds up to the whole trail, and a snapshot that is gone cuts it', async () => {
    const whole = await resolveTrail(4, open, new Map())
    expect(whole.complete).toBe(true)
    expect(whole.lineage).toEqual([4, 3, 1])
    expect(Object.keys(whole.trail.files).sort()).toEqual(['one.md', 'three.md'])
    expect(whole.trail.files['one.md']).toEqual(entry(4))
    const cut = await resolveTrail(4, async (id) => (id === 1 ? null : open(id)), new Map())
    expect(cut.complete).toBe(false)
    expect(Object.keys(cut.trail.files).sort()).toEqual(['one.md', 'three.md'])
  })

  it('builds on the newest snapshot whose whole lineage stays, and lists only what differs from it', async () => {
    const resolved: ResolvedTrail = await resolveTrail(4, open, new Map())
    expect(chooseAnchor(resolved, () => false)).toBe(4)
    expect(chooseAnchor(resolved, (id) => id === 4)).toBe(3)
    expect(chooseAnchor(resolved, (id) => id === 1)).toBeNull()
    expect(chooseAnchor({ ...resolved, complete: false }, () => false)).toBeNull()
    const { 'three.md': _removed, ...kept } = resolved.trail.files
    const trail = { files: { ...kept, 'five.md': entry(0) } }
    expect(storedTrailFor(trail, { id: 4, trail: resolved.trail })).toEqual({
      base: 4,
      files: { 'five.md': entry(0), 'three.md': null },
    })
    expect(storedTrailFor(trail, null)).toEqual({ base: null, files: trail.files })
  })
})
