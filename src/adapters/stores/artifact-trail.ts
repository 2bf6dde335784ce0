/**
 * The audit trail inside the artifact store's snapshots, kept incrementally so that a loop's
 * artifacts grow with its iterations, not with their square (issue 13, point 6).
 *
 * Each snapshot holds `trail-manifest.json`: the trail's files as they were at that save (size,
 * sha256) and the parts each is made of, in order: `[artifact id, bytes]`, where the snapshot
 * `artifact` holds those bytes under `trail/<path>` (id 0 in a stored manifest: the snapshot itself).
 * The manifest lists only the files that differ from an earlier snapshot's trail (`base`); a restore
 * applies it on that one's, down to a manifest with no base that lists the whole trail.
 * A save uploads only what the snapshot it builds on does not hold already: a new or rewritten file
 * whole, and for a file that grew from the base's content (the journey log is append-only) only the
 * bytes past the base's end. Parts held in a snapshot that is gone, about to be replaced or about to
 * expire are uploaded again from the local copy, from the first such part to the file's end, so a
 * manifest never leans on an artifact that is going away; for the same reason `base` is never such a
 * snapshot, nor one whose own lineage holds one (when no snapshot qualifies, the manifest lists the
 * whole trail again: about once per retention period).
 *
 * Snapshots from before the manifest carry the whole trail under `audit/`: read as one part per file.
 */
import { createHash } from 'node:crypto'
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'

export const TRAIL_MANIFEST = 'trail-manifest.json'
/** Where a snapshot keeps the trail bytes it holds itself. */
const TRAIL_FOLDER = 'trail'
/** Where snapshots from before the manifest kept the whole trail. */
const LEGACY_FOLDER = 'audit'

/** `bytes` bytes of a file, held under `trail/<path>` in the snapshot artifact `artifact`. */
type Part = [artifact: number, bytes: number]

interface TrailEntry {
  size: number
  sha256: string
  parts: Part[]
}

/** A whole trail as one snapshot saw it: every file, and where its bytes are kept. */
export interface TrailManifest {
  files: Record<string, TrailEntry>
}

/**
 * A manifest as a snapshot stores it: the files that differ from the trail of the snapshot `base`
 * (null: a removed file), or, with `base` null, the whole trail.
 */
export interface StoredTrail {
  base: number | null
  files: Record<string, TrailEntry | null>
}

/** A snapshot's whole trail, and the snapshots its manifest leans on: itself, its base, the base's base… */
export interface ResolvedTrail {
  trail: TrailManifest
  lineage: number[]
  /** False when a snapshot of the lineage is gone: the trail then misses what only that one recorded. */
  complete: boolean
}

export const EMPTY_TRAIL: TrailManifest = { files: {} }

/**
 * The manifest a downloaded snapshot (its folder, its artifact id) stores, its own parts named by
 * `selfId`. A manifest that does not parse, or names a path that would leave the trail folder, is refused.
 */
export async function readStoredTrail(folder: string, selfId: number): Promise<StoredTrail> {
  const text = await readFile(join(folder, TRAIL_MANIFEST), 'utf8').catch(() => null)
  if (text === null) return { base: null, files: (await legacyTrail(folder, selfId)).files }
  const raw = JSON.parse(text) as { base?: unknown; files?: unknown }
  if (!raw || typeof raw.files !== 'object' || raw.files === null) throw new Error(`${TRAIL_MANIFEST} lists no files`)
  if (raw.base !== null && !(Number.isSafeInteger(raw.base) && (raw.base as number) > 0)) {
    throw new Error(`${TRAIL_MANIFEST}: base ${JSON.stringify(raw.base)} is not an artifact id`)
  }
  const files: Record<string, TrailEntry | null> = {}
  for (const [path, value] of Object.entries(raw.files as Record<string, TrailEntry | null>)) {
    if (!isSafePath(path))
      throw new Error(`${TRAIL_MANIFEST}: the path ${JSON.stringify(path)} is not a plain relative path`)
    if (value === null) {
      files[path] = null
      continue
    }
    const parts = Array.isArray(value?.parts) ? value.parts : null
    if (
      !Number.isSafeInteger(value?.size) ||
      typeof value?.sha256 !== 'string' ||
      !parts?.every(
        (part) => Array.isArray(part) && part.length === 2 && part.every((n) => Number.isSafeInteger(n) && n >= 0),
      )
    ) {
      throw new Error(`${TRAIL_MANIFEST}: the entry for ${JSON.stringify(path)} is malformed`)
    }
    files[path] = {
      size: value.size,
      sha256: value.sha256,
      parts: parts.map(([artifact, bytes]) => [artifact === 0 ? selfId : artifact, bytes]),
    }
  }
  return { base: raw.base as number | null, files }
}

async function legacyTrail(folder: string, selfId: number): Promise<TrailManifest> {
  const source = join(folder, LEGACY_FOLDER)
  const files: Record<string, TrailEntry> = {}
  for (const file of await listFiles(source)) {
    const content = await readFile(file)
    files[toTrailPath(relative(source, file))] = {
      size: content.length,
      sha256: digest(content),
      parts: [[selfId, content.length]],
    }
  }
  return { files }
}

/**
 * The whole trail of snapshot `id`: its stored manifest applied on its base's trail, down the lineage
 * to a whole one. `open` reads a snapshot's stored manifest, or null when the snapshot is gone (the
 * lineage is then cut there: `complete` false). The result is remembered in `known`; the lineage's
 * intermediate trails are not (a long loop's would take memory in the square of its iterations).
 */
export async function resolveTrail(
  id: number,
  open: (id: number) => Promise<StoredTrail | null>,
  known: Map<number, ResolvedTrail>,
): Promise<ResolvedTrail> {
  const remembered = known.get(id)
  if (remembered) return remembered
  const chain: Array<{ id: number; stored: StoredTrail }> = []
  let start: ResolvedTrail = { trail: EMPTY_TRAIL, lineage: [], complete: false }
  let next: number | null = id
  while (next !== null) {
    const found = known.get(next)
    if (found) {
      start = found
      break
    }
    if (chain.some((link) => link.id === next)) break
    const stored = await open(next)
    if (!stored) break
    chain.push({ id: next, stored })
    if (stored.base === null) start = { trail: EMPTY_TRAIL, lineage: [], complete: true }
    next = stored.base
  }
  // One copy, changed in place from the oldest manifest to the newest (`known`'s trails stay as they are).
  const files: Record<string, TrailEntry> = { ...start.trail.files }
  let complete = start.complete
  for (const link of chain.reverse()) {
    if (link.stored.base === null) {
      for (const path of Object.keys(files)) delete files[path]
      complete = true
    }
    for (const [path, entry] of Object.entries(link.stored.files)) {
      if (entry === null) delete files[path]
      else files[path] = entry
    }
  }
  const lineage = [...chain.map((link) => link.id).reverse(), ...start.lineage]
  const resolved = { trail: { files }, lineage, complete }
  known.set(id, resolved)
  return resolved
}

/**
 * The snapshot a save's manifest should build on: the newest of `base`'s lineage that stays, with all
 * its own lineage (none of them `doomed`); null when there is none (the manifest then lists the whole
 * trail).
 */
export function chooseAnchor(base: ResolvedTrail | null, doomed: (artifact: number) => boolean): number | null {
  if (!base?.complete) return null
  let anchor: number | null = null
  for (let index = base.lineage.length - 1; index >= 0 && !doomed(base.lineage[index]!); index--) {
    anchor = base.lineage[index]!
  }
  return anchor
}

/**
 * What a save stores for `trail` (its own parts as id 0): the files that differ from the trail of
 * `anchor` (see `chooseAnchor`), or the whole trail without one. So the manifest too grows with what
 * changed, not with the trail.
 */
export function storedTrailFor(trail: TrailManifest, anchor: { id: number; trail: TrailManifest } | null): StoredTrail {
  if (!anchor) return { base: null, files: trail.files }
  const files: Record<string, TrailEntry | null> = {}
  for (const [path, entry] of Object.entries(trail.files)) {
    if (JSON.stringify(entry) !== JSON.stringify(anchor.trail.files[path])) files[path] = entry
  }
  for (const path of Object.keys(anchor.trail.files)) if (!(path in trail.files)) files[path] = null
  return { base: anchor.id, files }
}

/**
 * Stages this save's share of the trail in `folder`: for each file of `auditDir`, the bytes that
 * `base` does not already keep in a snapshot that stays (`doomed` names those that do not), under
 * `trail/`. Returns the manifest to write beside them (its own parts as id 0) and the bytes staged.
 */
export async function stageTrail(
  auditDir: string,
  base: TrailManifest,
  doomed: (artifact: number) => boolean,
  folder: string,
): Promise<{ manifest: TrailManifest; stagedBytes: number }> {
  const files: Record<string, TrailEntry> = {}
  let stagedBytes = 0
  for (const file of await listFiles(auditDir)) {
    const path = toTrailPath(relative(auditDir, file))
    const content = await readFile(file)
    const known = base.files[path]
    let kept: Part[] = []
    if (known && content.length >= known.size && digest(content.subarray(0, known.size)) === known.sha256) {
      const firstDoomed = known.parts.findIndex(([artifact]) => doomed(artifact))
      kept = firstDoomed === -1 ? known.parts : known.parts.slice(0, firstDoomed)
    }
    const keptBytes = kept.reduce((sum, [, bytes]) => sum + bytes, 0)
    const parts: Part[] = [...kept]
    if (keptBytes < content.length) {
      const target = join(folder, TRAIL_FOLDER, ...path.split('/'))
      await mkdir(join(target, '..'), { recursive: true })
      await writeFile(target, content.subarray(keptBytes))
      parts.push([0, content.length - keptBytes])
      stagedBytes += content.length - keptBytes
    }
    files[path] = { size: content.length, sha256: digest(content), parts }
  }
  return { manifest: { files }, stagedBytes }
}

/** The snapshots (artifact ids) a manifest's files are kept in. */
export function snapshotsOf(manifest: TrailManifest): number[] {
  return [...new Set(Object.values(manifest.files).flatMap((entry) => entry.parts.map(([artifact]) => artifact)))]
}

/**
 * Writes the manifest's files into `dir` from the downloaded snapshot folders (`folders`: artifact id
 * to folder; an id missing there was lost). A file with a lost part, or whose bytes do not add up to
 * its recorded sha256, is left out and named in `lost`.
 */
export async function assembleTrail(
  manifest: TrailManifest,
  folders: ReadonlyMap<number, string>,
  dir: string,
): Promise<{ restored: number; lost: string[] }> {
  const lost: string[] = []
  let restored = 0
  for (const [path, entry] of Object.entries(manifest.files)) {
    const pieces: Buffer[] = []
    for (const [artifact, bytes] of entry.parts) {
      const folder = folders.get(artifact)
      const piece = folder ? await readPart(folder, path) : null
      if (!piece || piece.length !== bytes) break
      pieces.push(piece)
    }
    const content = Buffer.concat(pieces)
    if (pieces.length !== entry.parts.length || content.length !== entry.size || digest(content) !== entry.sha256) {
      lost.push(path)
      continue
    }
    const target = join(dir, ...path.split('/'))
    await mkdir(join(target, '..'), { recursive: true })
    await writeFile(target, content)
    restored++
  }
  return { restored, lost }
}

/** A snapshot's bytes of `path`: under `trail/`, or under `audit/` in a snapshot from before the manifest. */
async function readPart(folder: string, path: string): Promise<Buffer | null> {
  const segments = path.split('/')
  return readFile(join(folder, TRAIL_FOLDER, ...segments)).catch(() =>
    readFile(join(folder, LEGACY_FOLDER, ...segments)).catch(() => null),
  )
}

/** The stored manifest's text (this snapshot's own parts as id 0: its id is known only after the upload). */
export function storedTrailText(stored: StoredTrail): string {
  return `${JSON.stringify(stored)}\n`
}

function digest(content: Buffer): string {
  return createHash('sha256').update(content).digest('base64url')
}

function toTrailPath(relativePath: string): string {
  return relativePath.split(sep).join('/')
}

/** A relative path of plain segments: a manifest cannot make a restore write outside the trail folder. */
function isSafePath(path: string): boolean {
  return (
    path.length > 0 &&
    path !== '__proto__' &&
    !path.includes('\\') &&
    !path.includes('\0') &&
    path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..')
  )
}

export async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  )
}

/** The files under `folder` (none when it does not exist). */
export async function listFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => [])
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name))
}
