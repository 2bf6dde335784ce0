import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { GitCli } from '../../../src/adapters/git-cli.js'
import {
  bundleCandidate,
  CANDIDATE_REF,
  candidateCommits,
  receiveCandidate,
} from '../../../src/app/fan-out/candidate.js'
import { gitIn, tempDir } from './helpers.js'

const root = tempDir('loop-fan-out-')
let counter = 0

const sh = gitIn
const commit = (dir: string, file: string, text: string) => {
  writeFileSync(join(dir, file), text)
  sh(dir, 'add', file)
  sh(dir, 'commit', '-q', '-m', `${file}: ${text}`)
  return sh(dir, 'rev-parse', 'HEAD')
}

/** A plan's repository on loop/x at `base`, and a receiving clone of it taken at `base`. */
function scene(): { plan: string; receiver: string; base: string; bundle: string } {
  const dir = join(root, `scene-${++counter}`)
  const plan = join(dir, 'plan')
  mkdirSync(plan, { recursive: true })
  sh(plan, 'init', '-q', '-b', 'main')
  const base = commit(plan, 'README.md', 'base')
  sh(plan, 'checkout', '-q', '-b', 'loop/x')
  const receiver = join(dir, 'receiver')
  sh(dir, 'clone', '-q', plan, receiver)
  return { plan, receiver, base, bundle: join(dir, 'candidate.bundle') }
}

describe('the candidate bundle', () => {
  let s: ReturnType<typeof scene>
  beforeEach(() => {
    s = scene()
  })

  it('carries a straight line of commits on the base, taken into the candidate ref with hooks off', async () => {
    commit(s.plan, 'a.txt', 'one')
    const candidate = commit(s.plan, 'a.txt', 'two')
    expect(await bundleCandidate(new GitCli(s.plan), s.bundle, 'loop/x', s.base)).toBe(true)
    // A hook planted in the receiving repository (as work in a shared runner could) never runs.
    const marker = join(s.receiver, '..', 'hook-ran')
    for (const hook of ['reference-transaction', 'post-merge', 'post-checkout']) {
      writeFileSync(join(s.receiver, '.git', 'hooks', hook), `#!/bin/sh\ntouch "${marker}"\n`)
      chmodSync(join(s.receiver, '.git', 'hooks', hook), 0o755)
    }
    const git = new GitCli(s.receiver)
    await receiveCandidate(git, s.bundle, s.base, candidate)
    expect(sh(s.receiver, 'rev-parse', CANDIDATE_REF)).toBe(candidate)
    expect((await candidateCommits(git, s.base, candidate)).map((c) => c.message)).toEqual(['a.txt: one', 'a.txt: two'])
    expect(existsSync(marker)).toBe(false)
  })

  it('is not written when the work changed nothing', async () => {
    expect(await bundleCandidate(new GitCli(s.plan), s.bundle, 'loop/x', s.base)).toBe(false)
    expect(existsSync(s.bundle)).toBe(false)
  })

  it('is refused with two heads', async () => {
    const candidate = commit(s.plan, 'a.txt', 'one')
    sh(s.plan, 'branch', 'other')
    sh(s.plan, 'bundle', 'create', s.bundle, 'refs/heads/loop/x', 'refs/heads/other', `^${s.base}`)
    await expect(receiveCandidate(new GitCli(s.receiver), s.bundle, s.base, candidate)).rejects.toThrow(
      'The candidate bundle must hold exactly one head; it holds 2.',
    )
  })

  it('is refused when its commits are not a straight line (a merge)', async () => {
    sh(s.plan, 'checkout', '-q', '-b', 'side', s.base)
    commit(s.plan, 'side.txt', 'side')
    sh(s.plan, 'checkout', '-q', 'loop/x')
    commit(s.plan, 'a.txt', 'one')
    sh(s.plan, '-c', 'core.hooksPath=/dev/null', 'merge', '-q', '--no-ff', '-m', 'merge side', 'side')
    const candidate = sh(s.plan, 'rev-parse', 'HEAD')
    await bundleCandidate(new GitCli(s.plan), s.bundle, 'loop/x', s.base)
    await expect(receiveCandidate(new GitCli(s.receiver), s.bundle, s.base, candidate)).rejects.toThrow(
      /must be a straight line on the base; 1 of them has other than one parent/,
    )
  })

  it('is refused when its head is not the plan’s candidate', async () => {
    commit(s.plan, 'a.txt', 'one')
    await bundleCandidate(new GitCli(s.plan), s.bundle, 'loop/x', s.base)
    await expect(receiveCandidate(new GitCli(s.receiver), s.bundle, s.base, 'c'.repeat(40))).rejects.toThrow(
      /The candidate bundle's head is [0-9a-f]{40}, not the plan's candidate c{40}\./,
    )
  })

  it('is refused where the plan’s base is missing', async () => {
    const later = commit(s.plan, 'a.txt', 'one')
    const candidate = commit(s.plan, 'a.txt', 'two')
    // Built on a base the receiver has never seen.
    await bundleCandidate(new GitCli(s.plan), s.bundle, 'loop/x', later)
    await expect(receiveCandidate(new GitCli(s.receiver), s.bundle, later, candidate)).rejects.toThrow(
      /does not apply to this repository \(it needs the plan's base/,
    )
  })

  it('is refused when the candidate is not built on the base the plan names', async () => {
    const first = commit(s.plan, 'a.txt', 'one')
    const candidate = commit(s.plan, 'a.txt', 'two')
    await bundleCandidate(new GitCli(s.plan), s.bundle, 'loop/x', s.base)
    // Another commit the receiver has, off the line: the plan claims it as the base.
    const elsewhere = commit(s.receiver, 'z.txt', 'elsewhere')
    expect(first).not.toBe(elsewhere)
    await expect(receiveCandidate(new GitCli(s.receiver), s.bundle, elsewhere, candidate)).rejects.toThrow(
      `The candidate ${candidate} is not built on the plan's base ${elsewhere}.`,
    )
  })
})
