/** Files the controller itself reads and writes in the workspace (prompt files, code context, logs). */
export interface Workspace {
  /** Up to `maxBytes` of a text file, or null when it does not exist or is not a regular file. */
  readText(path: string, maxBytes?: number): Promise<string | null>
  writeText(path: string, text: string): Promise<void>
  makeDir(path: string): Promise<void>
  remove(path: string): Promise<void>
}
