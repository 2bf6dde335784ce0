// The npm registry's `loop-controller` is someone else's package (no bin): nothing may tell a person to
// fetch the CLI from there. The CLI is run from this repository (`npx --yes github:...`) or a clone.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '..', '..', '..')

function filesUnder(dir: string, ext: RegExp): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && ext.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
}

const FROM_THE_REGISTRY =
  /\bnpx\s+(?:(?:-y|--yes)\s+)?loop-controller\b|\bnpm\s+(?:i|install)\s+(?:-g\s+|--global\s+)?loop-controller\b/

describe('how the docs say to get the CLI', () => {
  const files = [
    join(ROOT, 'README.md'),
    join(ROOT, 'action.yml'),
    ...filesUnder('docs', /\.md$/),
    ...filesUnder('examples', /\.(ya?ml|md)$/),
    ...filesUnder('src', /\.ts$/),
  ]
  it.each(files.map((file) => [file.slice(ROOT.length + 1), file]))(
    '%s never sends anyone to the registry',
    (_, file) => {
      expect(readFileSync(file, 'utf8')).not.toMatch(FROM_THE_REGISTRY)
    },
  )

  it('the quick start runs init from this repository', () => {
    for (const doc of ['README.md', 'docs/github.md']) {
      expect(readFileSync(join(ROOT, doc), 'utf8')).toContain(
        '`npx --yes github:loop-controller/loop-controller#v1 init`',
      )
    }
  })
})
