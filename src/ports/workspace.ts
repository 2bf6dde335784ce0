/** Files the controller itself reads and writes in the workspace (prompt files, code context, logs). */
export interface Workspace {
  /** Up to `maxBytes` of a text file, or null when it does not exist or is not a regular file. */
  readText(path: string, maxBytes?: number): Promise<string | null>
  writeText(path: string, text: string): Promise<void>
  makeDir(path: string): Promise<void>
  /** Removes a folder and all it holds, or a file; nothing when the path does not exist. */
  remove(path: string): Promise<void>
  /**
   * Removes `path` only when it is a regular file or a symlink (the link, never what it names), never
   * recursively: says whether it did, found nothing, or left something that is not a file (a folder).
   */
  removeFile(path: string): Promise<'removed' | 'absent' | 'not-a-file'>
  /** The path with every symlink resolved, or null when it does not exist. */
  realPath(path: string): Promise<string | null>
}
