// What `npx --yes github:loop-controller/loop-controller#v1 init` runs: npm packs the repository (no
// build step: dist/ is committed and no install script needs the dev dependencies) and runs its bin.
// The test packs this repository the same way and runs the bin from the unpacked tarball, away from
// any node_modules, in a fresh git repository. (The registry's `loop-controller` is someone else's
// package: the docs never send anyone there.)
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { projectRoot } from './helpers.js'

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

describe('the packed package', () => {
  it('runs `loop-controller init` from its tarball alone: no build, no dependencies installed', () => {
    const packed = tempDir('loop-pack-')
    execFileSync('npm', ['pack', '--silent', '--pack-destination', packed], { cwd: projectRoot, stdio: 'pipe' })
    const [tarball] = readdirSync(packed).filter((name) => name.endsWith('.tgz'))
    expect(tarball).toBeDefined()
    execFileSync('tar', ['-xzf', join(packed, tarball as string), '-C', packed])
    const unpacked = join(packed, 'package')
    const manifest = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8')) as {
      bin: Record<string, string>
      scripts?: Record<string, string>
    }
    // npm runs these when it installs from git or a tarball; prepare would need the dev dependencies.
    for (const script of ['prepare', 'preinstall', 'install', 'postinstall', 'prepack']) {
      expect(manifest.scripts?.[script], script).toBeUndefined()
    }
    const bin = manifest.bin['loop-controller']
    expect(bin).toBe('bin/loop-controller.js')
    expect(existsSync(join(unpacked, 'node_modules'))).toBe(false)

    const repo = tempDir('loop-pack-repo-')
    execFileSync('git', ['init', '-q'], { cwd: repo })
    const out = execFileSync('node', [join(unpacked, bin as string), 'init'], {
      cwd: repo,
      encoding: 'utf8',
      env: { ...process.env, NODE_PATH: '' },
    })
    expect(out).toContain('.github/loop.yml')
    const config = readFileSync(join(repo, '.github', 'loop.yml'), 'utf8')
    expect(config).toMatch(/^agent: claude$/m)
    expect(readFileSync(join(repo, '.git', 'info', 'exclude'), 'utf8')).toContain('/.loop/')
  }, 60_000)
})
