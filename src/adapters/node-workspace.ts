import { lstat, mkdir, open, realpath, rm, stat, unlink, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { Workspace } from '../ports/workspace.js'

/** The `Workspace` port on the local file system. */
export const nodeWorkspace: Workspace = {
  async readText(path, maxBytes = 1024 * 1024) {
    try {
      const info = await stat(path)
      if (!info.isFile()) return null
      const handle = await open(path, 'r')
      try {
        const buffer = Buffer.alloc(Math.min(info.size, maxBytes))
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
        return buffer.subarray(0, bytesRead).toString('utf8')
      } finally {
        await handle.close()
      }
    } catch {
      return null
    }
  },
  async writeText(path, text) {
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, text)
  },
  async makeDir(path) {
    await mkdir(path, { recursive: true })
  },
  async remove(path) {
    await rm(path, { recursive: true, force: true })
  },
  async removeFile(path) {
    const info = await lstat(path).catch(() => null)
    if (!info) return 'absent'
    if (!info.isFile() && !info.isSymbolicLink()) return 'not-a-file'
    try {
      await unlink(path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'absent'
      throw error
    }
    return 'removed'
  },
  async realPath(path) {
    return realpath(path).catch(() => null)
  },
}
