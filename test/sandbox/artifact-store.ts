// actions/upload-artifact and actions/download-artifact between the jobs of one run, kept in a folder
// of the run (not in the results service: these artifacts are not listed by the REST API, and the
// action under test keeps using the results service through @actions/artifact). Paths are files or
// folders relative to the workspace, one per line; wildcards and `!` exclusions are refused.
import { cpSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { basename, isAbsolute, join, relative, resolve } from 'node:path'

/** The `with:` keys of the two actions the engine honours. */
export const UPLOAD_INPUTS = new Set(['name', 'path', 'if-no-files-found'])
export const DOWNLOAD_INPUTS = new Set(['name', 'path', 'pattern', 'merge-multiple'])

export class ArtifactStore {
  constructor(private readonly dir: string) {}

  /** Uploads `paths` (relative to the workspace) as `name`; says what it did, throws what GitHub refuses. */
  upload(workspace: string, withInputs: Record<string, string>): string {
    const name = withInputs.name || 'artifact'
    const target = join(this.dir, name)
    // upload-artifact v4 on: one upload per name and run.
    if (existsSync(target)) {
      throw new Error(
        `Failed to CreateArtifact: Received non-retryable error: Failed request: (409) Conflict: an artifact with this name already exists on the workflow run ('${name}')`,
      )
    }
    const paths = (withInputs.path ?? '')
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
    if (paths.length === 0) throw new Error("input 'path' is required")
    const refused = paths.find((path) => /[*?[\]]/.test(path) || path.startsWith('!'))
    if (refused) throw new Error(`the sandbox's upload-artifact takes plain paths; got '${refused}'`)
    const found = paths.map((path) => resolve(workspace, path)).filter(existsSync)
    if (found.length === 0) {
      const mode = withInputs['if-no-files-found'] || 'warn'
      if (mode === 'error') throw new Error(`No files were found with the provided path: ${paths.join(', ')}`)
      return `No files were found with the provided path: ${paths.join(', ')}. No artifacts will be uploaded.`
    }
    mkdirSync(target, { recursive: true })
    // As upload-artifact does: one folder uploads its content; paths keep their place under their common folder.
    const only = found.length === 1 ? (found[0] ?? '') : ''
    if (only && statSync(only).isDirectory()) cpSync(only, target, { recursive: true })
    else {
      const root = commonFolder(found)
      for (const path of found) cpSync(path, join(target, relative(root, path) || basename(path)), { recursive: true })
    }
    return `Artifact ${name} has been uploaded (${found.length} path(s))`
  }

  /** Downloads one artifact by name, or every one (matching `pattern`), into `path` of the workspace. */
  download(workspace: string, withInputs: Record<string, string>): string {
    const destination = withInputs.path ? resolve(workspace, withInputs.path) : workspace
    if (!isAbsolute(destination)) throw new Error(`bad path '${withInputs.path}'`)
    const all = existsSync(this.dir) ? readdirSync(this.dir).sort() : []
    if (withInputs.name) {
      if (!all.includes(withInputs.name)) throw new Error(`Artifact not found for name: ${withInputs.name}`)
      cpSync(join(this.dir, withInputs.name), destination, { recursive: true })
      return `Artifact ${withInputs.name} downloaded to ${destination}`
    }
    const pattern = withInputs.pattern ? globToRegExp(withInputs.pattern) : /.*/
    const chosen = all.filter((name) => pattern.test(name))
    const merge = withInputs['merge-multiple'] === 'true'
    for (const name of chosen) {
      cpSync(join(this.dir, name), merge ? destination : join(destination, name), { recursive: true })
    }
    return `${chosen.length} artifact(s) downloaded to ${destination}`
  }
}

function commonFolder(paths: string[]): string {
  const parts = paths.map((path) => resolve(path, '..').split('/'))
  const first = parts[0] ?? []
  let length = 0
  while (length < first.length && parts.every((p) => p[length] === first[length])) length++
  return first.slice(0, length).join('/') || '/'
}

/** download-artifact's `pattern`: `*` and `?` wildcards. */
function globToRegExp(glob: string): RegExp {
  const escaped = glob
    .replace(/[.+^${}()|\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.')
  return new RegExp(`^${escaped}$`)
}
