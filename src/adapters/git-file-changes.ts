/**
 * The contents behind `GitCli.changesSince`: a file's text at a ref and in the work tree, leaving out
 * binary files and files too big to compare.
 */
import { lstat, readFile, readlink } from 'node:fs/promises'
import { join } from 'node:path'
import type { FileChange } from '../ports/git.js'
import { type GitProcess, splitZ } from './git-process.js'

/** Files larger than this are left out of `changesSince` (and so are binary files). */
export const DEFAULT_CHANGE_MAX_BYTES = 1024 * 1024

/**
 * Text changes of `paths` between `ref` and the work tree under `top`, in the order of `paths`. A path
 * binary or over `maxBytes` on either side is left out, unless `withUnreadable`: then it is kept with
 * that side '' and named in `unreadable` (the guard must see a binary or large protected file change).
 */
export async function textChanges(
  git: GitProcess,
  ref: string,
  paths: readonly string[],
  top: string,
  maxBytes: number,
  withUnreadable = false,
): Promise<FileChange[]> {
  const before = await blobsAt(git, ref, paths, maxBytes)
  const changes: FileChange[] = []
  for (const path of paths) {
    const old = before.get(path)
    const now = await readWorkTreeFile(join(top, path), maxBytes)
    const oldUnreadable = unreadableAs(old)
    const nowUnreadable = unreadableAs(now)
    if (oldUnreadable || nowUnreadable) {
      if (!withUnreadable) continue
      const unreadable = {
        ...(oldUnreadable ? { before: oldUnreadable } : {}),
        ...(nowUnreadable ? { after: nowUnreadable } : {}),
      }
      changes.push({ path, before: textOf(old), after: textOf(now), unreadable })
      continue
    }
    changes.push({ path, before: textOf(old), after: textOf(now) })
  }
  return changes
}

function unreadableAs(content: Buffer | 'omitted' | null | undefined): 'binary' | 'large' | null {
  if (content === 'omitted') return 'large'
  return content && isBinary(content) ? 'binary' : null
}

/** The text of one side; '' for a side present but not read as text. */
function textOf(content: Buffer | 'omitted' | null | undefined): string | null {
  if (content === null || content === undefined) return null
  return content === 'omitted' || isBinary(content) ? '' : content.toString('utf8')
}

/** Blobs of `paths` at `ref`: a Buffer, `omitted` when over `maxBytes` or not a file, absent when missing. */
async function blobsAt(git: GitProcess, ref: string, paths: readonly string[], maxBytes: number) {
  const blobs = new Map<string, Buffer | 'omitted'>()
  const wanted = new Map<string, string>()
  for (let start = 0; start < paths.length; start += 500) {
    const batch = paths.slice(start, start + 500)
    const listing = await git.raw([
      '--literal-pathspecs',
      'ls-tree',
      '--full-tree',
      '-r',
      '-z',
      '-l',
      ref,
      '--',
      ...batch,
    ])
    git.check(['ls-tree', '-r', '-z', '-l', ref], listing)
    for (const entry of splitZ(listing.stdout)) {
      const match = /^(\d+) (\w+) ([0-9a-f]+) +(-|\d+)\t(.*)$/s.exec(entry)
      if (!match) continue
      const [, mode, type, object, size, path] = match as unknown as [string, string, string, string, string, string]
      if (type !== 'blob' || size === '-' || Number(size) > maxBytes || mode === '160000') blobs.set(path, 'omitted')
      else wanted.set(object, path)
    }
  }
  if (wanted.size === 0) return blobs
  const objects = [...wanted.keys()]
  const result = await git.raw(['cat-file', '--batch'], {
    input: Buffer.from(objects.map((o) => `${o}\n`).join('')),
  })
  git.check(['cat-file', '--batch'], result)
  let offset = 0
  const out = result.stdout
  while (offset < out.length) {
    const headerEnd = out.indexOf(10, offset)
    const [object = '', , size = '0'] = out.subarray(offset, headerEnd).toString('utf8').split(' ')
    const length = Number(size)
    const content = out.subarray(headerEnd + 1, headerEnd + 1 + length)
    const path = wanted.get(object)
    if (path !== undefined) blobs.set(path, content)
    offset = headerEnd + 1 + length + 1
  }
  return blobs
}

/** Git's own test: a NUL byte in the first 8000 bytes means binary. */
function isBinary(content: Buffer): boolean {
  return content.subarray(0, 8000).includes(0)
}

/** A work-tree file's bytes (a symlink's target, as git stores it), null when gone, `omitted` when too big. */
async function readWorkTreeFile(path: string, maxBytes: number): Promise<Buffer | null | 'omitted'> {
  try {
    const stat = await lstat(path)
    if (stat.isSymbolicLink()) return Buffer.from(await readlink(path))
    if (!stat.isFile() || stat.size > maxBytes) return 'omitted'
    return await readFile(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR')
      return null
    throw error
  }
}
