// The run's artifacts (upload-artifact / download-artifact between its jobs): retention-days and
// include-hidden-files as upload-artifact takes them.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ArtifactStore, EARLIER_ATTEMPT_ERROR } from '../sandbox/artifact-store.js'
import { unzipInto, zipFolder } from '../sandbox/zip.js'

const DAY = 24 * 60 * 60 * 1000
let root = ''

function setup() {
  root = mkdtempSync(join(tmpdir(), 'sandbox-artifacts-'))
  const workspace = join(root, 'work')
  mkdirSync(join(workspace, 'plan'), { recursive: true })
  writeFileSync(join(workspace, 'plan', 'plan.json'), '{}\n')
  let now = Date.parse('2026-11-26T12:00:00Z')
  const store = new ArtifactStore(join(root, 'artifacts'), () => now)
  return { store, workspace, later: (ms: number) => (now += ms) }
}

afterEach(() => rmSync(root, { recursive: true, force: true }))

describe('the run`s artifacts: retention-days', () => {
  it('keeps an artifact its retention-days, then it is not found', () => {
    const { store, workspace, later } = setup()
    expect(store.upload(workspace, { name: 'loop-plan', path: 'plan', 'retention-days': '1' })).toBe(
      'Artifact loop-plan has been uploaded (1 path(s)), kept 1 day(s)',
    )
    later(DAY - 1)
    store.download(workspace, { name: 'loop-plan', path: 'got' })
    expect(readFileSync(join(workspace, 'got', 'plan.json'), 'utf8')).toBe('{}\n')
    later(1)
    expect(() => store.download(workspace, { name: 'loop-plan', path: 'again' })).toThrow(
      'Artifact not found for name: loop-plan',
    )
    expect(store.download(workspace, { pattern: 'loop-*', path: 'all' })).toMatch(/^0 artifact\(s\) downloaded/)
  })

  it.each([
    { value: '', kept: 'kept 90 day(s)' },
    { value: '0', kept: 'kept 90 day(s)' },
    { value: '90', kept: 'kept 90 day(s)' },
    {
      value: '400',
      kept: 'Retention days cannot be greater than the maximum allowed retention set within the repository. Using 90 instead.\nArtifact a has been uploaded (1 path(s)), kept 90 day(s)',
    },
  ])('takes retention-days $value as the repository`s setting allows', ({ value, kept }) => {
    const { store, workspace } = setup()
    expect(store.upload(workspace, { name: 'a', path: 'plan', 'retention-days': value })).toContain(kept)
  })

  it.each(['1.5', '-1', 'a week'])('refuses retention-days %j, as upload-artifact does', (value) => {
    const { store, workspace } = setup()
    expect(() => store.upload(workspace, { name: 'a', path: 'plan', 'retention-days': value })).toThrow(
      `Invalid retention-days: '${value}'`,
    )
  })
})

describe('the run`s artifacts: include-hidden-files', () => {
  it.each(['yes', 'on', '1'])(
    'refuses include-hidden-files %j, which is no YAML 1.2 boolean, as getBooleanInput does',
    (value) => {
      const { store, workspace } = setup()
      expect(() => store.upload(workspace, { name: 'a', path: 'plan', 'include-hidden-files': value })).toThrow(
        'Input does not meet YAML 1.2 "Core Schema" specification: include-hidden-files',
      )
    },
  )
})

describe('the run`s artifacts: attempts and the REST side', () => {
  it('publishes each upload as a zip of its files, with the attempt that made it', () => {
    const published: { name: string; zip: Buffer; attempt: number }[] = []
    root = mkdtempSync(join(tmpdir(), 'sandbox-artifacts-'))
    const workspace = join(root, 'work')
    mkdirSync(join(workspace, 'plan', 'deep'), { recursive: true })
    writeFileSync(join(workspace, 'plan', 'plan.json'), '{}\n')
    writeFileSync(join(workspace, 'plan', 'deep', 'bundle'), 'bytes')
    const store = new ArtifactStore(join(root, 'artifacts'), Date.now, (name, zip, _expires, attempt) =>
      published.push({ name, zip, attempt }),
    )
    store.upload(workspace, { name: 'loop-plan.attempt-2', path: 'plan' }, 2)
    expect(published.map((p) => [p.name, p.attempt])).toEqual([['loop-plan.attempt-2', 2]])
    expect(unzipInto(published[0]!.zip, join(root, 'out'))).toBe(2)
    expect(readFileSync(join(root, 'out', 'deep', 'bundle'), 'utf8')).toBe('bytes')
    expect(readFileSync(join(root, 'out', 'plan.json'), 'utf8')).toBe('{}\n')
  })

  it('serves a job of a later attempt, without a token, none of an earlier attempt`s artifacts (the 404 GitHub gives)', () => {
    const { store, workspace } = setup()
    store.upload(workspace, { name: 'loop-plan.attempt-1', path: 'plan' }, 1)
    expect(store.download(workspace, { name: 'loop-plan.attempt-1', path: 'same' }, 1)).toMatch(/downloaded/)
    expect(() => store.download(workspace, { name: 'loop-plan.attempt-1', path: 'later' }, 2)).toThrow(
      EARLIER_ATTEMPT_ERROR,
    )
    expect(() => store.download(workspace, { pattern: 'loop-*', path: 'later' }, 2)).toThrow(EARLIER_ATTEMPT_ERROR)
  })

  it('refuses a zip whose entry would land outside the destination, or whose bytes changed', () => {
    root = mkdtempSync(join(tmpdir(), 'sandbox-artifacts-'))
    mkdirSync(join(root, 'in'))
    writeFileSync(join(root, 'in', 'a.txt'), 'hello')
    const zip = zipFolder(join(root, 'in'))
    const renamed = Buffer.from(zip.toString('latin1').replaceAll('a.txt', '../..'), 'latin1')
    expect(() => unzipInto(renamed, join(root, 'out'))).toThrow(/outside the destination/)
    const corrupt = Buffer.from(zip)
    corrupt[35] = corrupt[35]! ^ 0xff // the first byte of a.txt's data
    expect(() => unzipInto(corrupt, join(root, 'out'))).toThrow(/CRC mismatch/)
  })
})
