/**
 * The git side of screening what a checkpoint commits (`domain/commit-policy.ts` decides): the paths
 * each tree about to be committed adds, changes or deletes against HEAD with their contents; which new
 * paths the ignore rules of an earlier tree ignore; a tree with some paths put back as HEAD has them;
 * and the ignored files on given paths, fingerprinted, for the verifier-gaming guard.
 */
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { lstat, mkdir, mkdtemp, readlink, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { CommitCandidate } from '../domain/commit-policy.js'
import { type GitProcess, splitZ } from './git-process.js'

const BATCH = 500
/** Contents read per `cat-file --batch`, well under what git-process accepts as output. */
const READ_BYTES_PER_BATCH = 64 * 1024 * 1024

/**
 * What committing each of `trees` on top of `base` would add, change or delete, with the content of
 * each blob up to `maxBytes`. An added path is `ignoredBefore` when the `.gitignore` files of any of
 * `ignoreRulesAt` ignore it.
 */
export async function commitCandidates(
  git: GitProcess,
  gitDir: string,
  base: string,
  trees: readonly string[],
  ignoreRulesAt: readonly string[],
  maxBytes: number,
): Promise<CommitCandidate[]> {
  const entries = new Map<string, { path: string; change: CommitCandidate['change']; blob: string | null }>()
  for (const tree of new Set(trees)) {
    const args = ['diff-tree', '-r', '-z', '--no-renames', '--raw', base, tree]
    const listed = await git.raw(args)
    git.check(args, listed)
    const parts = splitZ(listed.stdout)
    for (let i = 0; i + 1 < parts.length; i += 2) {
      const [, , newMode = '', , newBlob = '', status = ''] = (parts[i] ?? '').split(/[: ]+/)
      const path = parts[i + 1] ?? ''
      const change = status === 'D' ? 'deleted' : status === 'A' ? 'added' : 'modified'
      const blob = change === 'deleted' || newMode === '160000' ? null : newBlob
      entries.set(`${path}\0${blob ?? change}`, { path, change, blob })
    }
  }
  const blobs = [...new Set([...entries.values()].flatMap((e) => (e.blob ? [e.blob] : [])))]
  const { sizes, texts } = await blobContents(git, blobs, maxBytes)
  const added = [...entries.values()].filter((e) => e.change === 'added').map((e) => e.path)
  const ignored = new Set<string>()
  for (const path of await ignoredByAny(git, gitDir, ignoreRulesAt, added)) ignored.add(path)
  return [...entries.values()].map(({ path, change, blob }) => ({
    path,
    change,
    bytes: blob ? (sizes.get(blob) ?? 0) : 0,
    text: blob ? (texts.get(blob) ?? null) : null,
    ignoredBefore: change === 'added' && ignored.has(path),
  }))
}

/**
 * The size of each of `blobs` and the text of those up to `maxBytes`, read in one `cat-file --batch`
 * (another past READ_BYTES_PER_BATCH). git is stopped at the first blob over `maxBytes`, whose content
 * is never read: from there on each blob's size is asked first, then the texts of the small ones.
 */
async function blobContents(git: GitProcess, blobs: readonly string[], maxBytes: number) {
  const sizes = new Map<string, number>()
  const texts = new Map<string, string>()
  let rest = blobs
  while (rest.length > 0) {
    const reader = new BatchReader(maxBytes, sizes, texts)
    const input = Buffer.from(rest.map((b) => `${b}\n`).join(''))
    const result = await git.raw(['cat-file', '--batch'], { input, onStdout: (chunk) => reader.read(chunk) })
    if (!reader.stopped) git.check(['cat-file', '--batch'], result)
    if (reader.answered === 0 && !reader.stopped)
      throw new Error('git cat-file --batch answered none of the blobs asked')
    rest = rest.slice(reader.answered)
    if (reader.overMaxBytes) {
      const sized = await blobSizes(git, rest)
      for (const [blob, size] of sized) sizes.set(blob, size)
      const small = rest.filter((blob) => (sized.get(blob) ?? 0) <= maxBytes)
      for (const [blob, text] of await blobTexts(git, small, sized)) texts.set(blob, text)
      break
    }
  }
  return { sizes, texts }
}

/** Reads `cat-file --batch` output as it comes: a header (`<id> <type> <size>` or `<id> missing`), then the content. */
class BatchReader {
  /** Blobs answered, in the order asked. */
  answered = 0
  /** Whether the reader asked git to stop: at a blob over `maxBytes`, or with a batch's worth read. */
  stopped = false
  overMaxBytes = false
  private pending: Buffer = Buffer.alloc(0)
  private readBytes = 0

  constructor(
    private readonly maxBytes: number,
    private readonly sizes: Map<string, number>,
    private readonly texts: Map<string, string>,
  ) {}

  /** Takes a chunk of output; true when git should stop. */
  read(chunk: Buffer): boolean {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk])
    for (;;) {
      const headerEnd = this.pending.indexOf(10)
      if (headerEnd < 0) return false
      const [object = '', type = '', size] = this.pending.subarray(0, headerEnd).toString('utf8').split(' ')
      if (type === 'missing' || size === undefined) {
        this.answered++
        this.pending = this.pending.subarray(headerEnd + 1)
        continue
      }
      const length = Number(size)
      if (length > this.maxBytes) {
        this.sizes.set(object, length)
        this.answered++
        this.overMaxBytes = true
        this.stopped = true
        return true
      }
      if (this.pending.length < headerEnd + 1 + length + 1) return false
      this.sizes.set(object, length)
      this.texts.set(object, this.pending.subarray(headerEnd + 1, headerEnd + 1 + length).toString('utf8'))
      this.answered++
      this.readBytes += length
      this.pending = this.pending.subarray(headerEnd + 1 + length + 1)
      if (this.readBytes > READ_BYTES_PER_BATCH) {
        this.stopped = true
        return true
      }
    }
  }
}

async function blobSizes(git: GitProcess, blobs: readonly string[]): Promise<Map<string, number>> {
  const sizes = new Map<string, number>()
  if (blobs.length === 0) return sizes
  const result = await git.raw(['cat-file', '--batch-check'], {
    input: Buffer.from(blobs.map((b) => `${b}\n`).join('')),
  })
  git.check(['cat-file', '--batch-check'], result)
  for (const line of result.stdout.toString('utf8').split('\n')) {
    const [object = '', , size] = line.split(' ')
    if (size !== undefined) sizes.set(object, Number(size))
  }
  return sizes
}

async function blobTexts(git: GitProcess, blobs: readonly string[], sizes: Map<string, number>) {
  const texts = new Map<string, string>()
  let batch: string[] = []
  let batchBytes = 0
  const flush = async () => {
    if (batch.length === 0) return
    const result = await git.raw(['cat-file', '--batch'], { input: Buffer.from(batch.map((b) => `${b}\n`).join('')) })
    git.check(['cat-file', '--batch'], result)
    const out = result.stdout
    let offset = 0
    while (offset < out.length) {
      const headerEnd = out.indexOf(10, offset)
      const [object = '', , size = '0'] = out.subarray(offset, headerEnd).toString('utf8').split(' ')
      const length = Number(size)
      texts.set(object, out.subarray(headerEnd + 1, headerEnd + 1 + length).toString('utf8'))
      offset = headerEnd + 1 + length + 1
    }
    batch = []
    batchBytes = 0
  }
  for (const blob of blobs) {
    const size = sizes.get(blob) ?? 0
    if (batch.length > 0 && batchBytes + size > READ_BYTES_PER_BATCH) await flush()
    batch.push(blob)
    batchBytes += size
  }
  await flush()
  return texts
}

/**
 * Of `paths`, those ignored by the `.gitignore` files of any of `trees`. Trees with the same
 * `.gitignore` files (the work seldom edits one) are asked once.
 */
async function ignoredByAny(
  git: GitProcess,
  gitDir: string,
  trees: readonly string[],
  paths: readonly string[],
): Promise<Set<string>> {
  const ignored = new Set<string>()
  if (paths.length === 0) return ignored
  const asked = new Set<string>()
  for (const tree of new Set(trees)) {
    const ruleFiles = await ignoreRuleFiles(git, tree)
    const key = ruleFiles.map((file) => `${file.blob} ${file.path}`).join('\0')
    if (asked.has(key)) continue
    asked.add(key)
    for (const path of await ignoredAt(git, gitDir, ruleFiles, paths)) ignored.add(path)
  }
  return ignored
}

/** The `.gitignore` files of `tree`, in git's order. */
async function ignoreRuleFiles(git: GitProcess, tree: string): Promise<{ blob: string; path: string }[]> {
  const listing = await git.raw(['ls-tree', '-r', '-z', '--full-tree', tree])
  git.check(['ls-tree', '-r', tree], listing)
  return splitZ(listing.stdout).flatMap((entry) => {
    const match = /^100\d{3} blob ([0-9a-f]+)\t(.*)$/s.exec(entry)
    return match && /(?:^|\/)\.gitignore$/.test(match[2] ?? '') ? [{ blob: match[1] ?? '', path: match[2] ?? '' }] : []
  })
}

/**
 * Of `paths`, those ignored by `ruleFiles` (a tree's `.gitignore` files, with `.git/info/exclude` and
 * `core.excludesFile`): git's own matcher, run over a scratch work tree that holds only those files, so
 * an edit the work made to a `.gitignore` does not count.
 */
async function ignoredAt(
  git: GitProcess,
  gitDir: string,
  ruleFiles: readonly { blob: string; path: string }[],
  paths: readonly string[],
): Promise<Set<string>> {
  const scratch = await mkdtemp(join(tmpdir(), 'loop-ignore-rules-'))
  try {
    const contents = await blobTexts(git, [...new Set(ruleFiles.map((f) => f.blob))], new Map())
    for (const file of ruleFiles) {
      await mkdir(dirname(join(scratch, file.path)), { recursive: true })
      await writeFile(join(scratch, file.path), contents.get(file.blob) ?? '')
    }
    const result = await git.raw(['check-ignore', '--no-index', '--stdin', '-z'], {
      env: { GIT_DIR: gitDir, GIT_WORK_TREE: scratch },
      input: Buffer.from(paths.map((p) => `${p}\0`).join('')),
    })
    // 1: none of them is ignored.
    if (result.exitCode !== 0 && result.exitCode !== 1) git.check(['check-ignore', '--no-index'], result)
    return new Set(splitZ(result.stdout))
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}

/** `tree` with each of `paths` as `base` has it (absent where `base` lacks it), as a new tree id. */
export async function treeWithPathsFrom(
  git: GitProcess,
  tree: string,
  base: string,
  paths: readonly string[],
): Promise<string> {
  if (paths.length === 0) return tree
  const scratch = await mkdtemp(join(tmpdir(), 'loop-git-index-'))
  const env = { GIT_INDEX_FILE: join(scratch, 'index') }
  try {
    await git.exec(['read-tree', tree], { env })
    for (let start = 0; start < paths.length; start += BATCH) {
      const batch = paths.slice(start, start + BATCH)
      await git.exec(['--literal-pathspecs', 'rm', '-r', '-q', '--cached', '--ignore-unmatch', '--', ...batch], { env })
      const listed = await git.raw(['--literal-pathspecs', 'ls-tree', '-r', '-z', '--full-tree', base, '--', ...batch])
      git.check(['ls-tree', base], listed)
      const entries = splitZ(listed.stdout)
      if (entries.length === 0) continue
      const info = await git.raw(['update-index', '-z', '--index-info'], {
        env,
        input: Buffer.from(entries.map((e) => `${e}\0`).join('')),
      })
      git.check(['update-index', '--index-info'], info)
    }
    return (await git.exec(['write-tree'], { env })).stdout.trim()
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}

/**
 * The files the ignore rules hide (untracked) under `pathspecs`, each with a fingerprint of its
 * content, so two listings tell what was created, changed or deleted.
 */
export async function ignoredFiles(
  git: GitProcess,
  top: string,
  pathspecs: readonly string[],
): Promise<Record<string, string>> {
  if (pathspecs.length === 0) return {}
  const args = ['ls-files', '-z', '-o', '-i', '--exclude-standard', '--', ...pathspecs.map((p) => `:(glob)${p}`)]
  const listed = await git.raw(args)
  git.check(args, listed)
  const fingerprints: Record<string, string> = {}
  for (const path of splitZ(listed.stdout)) {
    const fingerprint = await fingerprintOf(join(top, path))
    if (fingerprint !== null) fingerprints[path] = fingerprint
  }
  return fingerprints
}

async function fingerprintOf(path: string): Promise<string | null> {
  try {
    const stat = await lstat(path)
    if (stat.isSymbolicLink()) return `link:${await readlink(path)}`
    if (!stat.isFile()) return null
    const hash = createHash('sha256')
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
    return hash.digest('hex')
  } catch {
    return null
  }
}
