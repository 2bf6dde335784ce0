/**
 * A check's JUnit report path is cleared before its run on the real file system and a real git
 * repository: only an untracked file (or a symlink, not what it names) inside the work tree is removed;
 * a folder named as the report, a folder reached through a symlink out of the work tree, and a report
 * git tracks are left as they are, each said once.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { GitCli } from '../../../src/adapters/git-cli.js'
import { nodeWorkspace } from '../../../src/adapters/node-workspace.js'
import { removeReport } from '../../../src/app/junit-reports.js'
import type { Logger } from '../../../src/ports/logger.js'
import { gitIn, tempDir } from './helpers.js'

function scene(git: boolean) {
  const cwd = tempDir('loop-junit-')
  if (git) gitIn(cwd, 'init', '-q')
  const warnings: string[] = []
  const logger: Logger = {
    info: () => {},
    debug: () => {},
    warning: (message) => warnings.push(message),
    error: () => {},
    group: (_name, body) => body(),
  }
  const deps = { workspace: nodeWorkspace, git: git ? new GitCli(cwd) : null, logger }
  const remove = (path: string) => removeReport({ cwd }, deps, path)
  return { cwd, warnings, remove }
}

describe('clearing a JUnit report path before its check', () => {
  it('removes a stale report file, and a symlink there without touching what it names', async () => {
    const { cwd, warnings, remove } = scene(false)
    mkdirSync(join(cwd, 'reports'))
    writeFileSync(join(cwd, 'reports/unit.xml'), '<stale/>')
    await remove('reports/unit.xml')
    expect(existsSync(join(cwd, 'reports/unit.xml'))).toBe(false)

    writeFileSync(join(cwd, 'keep.xml'), '<kept/>')
    symlinkSync(join(cwd, 'keep.xml'), join(cwd, 'reports/unit.xml'))
    await remove('reports/unit.xml')
    expect(existsSync(join(cwd, 'reports/unit.xml'))).toBe(false)
    expect(readFileSync(join(cwd, 'keep.xml'), 'utf8')).toBe('<kept/>')
    expect(warnings).toEqual([])
  })

  it('leaves a folder named as the report, and says once that junit must name a file', async () => {
    const { cwd, warnings, remove } = scene(false)
    mkdirSync(join(cwd, 'target/surefire-reports'), { recursive: true })
    writeFileSync(join(cwd, 'target/surefire-reports/TEST-a.xml'), '<a/>')
    await remove('target/surefire-reports')
    await remove('target/surefire-reports')
    expect(readFileSync(join(cwd, 'target/surefire-reports/TEST-a.xml'), 'utf8')).toBe('<a/>')
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('target/surefire-reports is not a file')
  })

  it('follows no symlinked folder out of the work tree', async () => {
    const { cwd, remove } = scene(false)
    const outside = tempDir('loop-junit-outside-')
    writeFileSync(join(outside, 'unit.xml'), '<theirs/>')
    symlinkSync(outside, join(cwd, 'reports'))
    await remove('reports/unit.xml')
    expect(readFileSync(join(outside, 'unit.xml'), 'utf8')).toBe('<theirs/>')
  })

  it('leaves a report git tracks, said once, and removes an untracked one beside it', async () => {
    const { cwd, warnings, remove } = scene(true)
    mkdirSync(join(cwd, 'reports'))
    writeFileSync(join(cwd, 'reports/committed.xml'), '<committed/>')
    gitIn(cwd, 'add', 'reports/committed.xml')
    gitIn(cwd, 'commit', '-qm', 'report')
    writeFileSync(join(cwd, 'reports/fresh.xml'), '<stale/>')
    await remove('reports/committed.xml')
    await remove('reports/committed.xml')
    await remove('reports/fresh.xml')
    expect(lstatSync(join(cwd, 'reports/committed.xml')).isFile()).toBe(true)
    expect(existsSync(join(cwd, 'reports/fresh.xml'))).toBe(false)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('reports/committed.xml is tracked by git')
  })
})
