import { describe, expect, it } from 'vitest'
import {
  type CommitCandidate,
  type CommitRules,
  credentialShape,
  refuseFromCommit,
} from '../../../src/domain/commit-policy.js'

const rules: CommitRules = { maxFileBytes: 1000, allowPaths: [], allowWorkflows: false }
const TOKEN = `ghp_${'a1B2c3D4e5'.repeat(3)}abcdef`
const KEY = '-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n'

function candidate(path: string, over: Partial<CommitCandidate> = {}): CommitCandidate {
  return { path, change: 'added', bytes: 10, text: 'plain text', ignoredBefore: false, ...over }
}

describe('refuseFromCommit', () => {
  const cases: { name: string; candidate: CommitCandidate; rules?: Partial<CommitRules>; refused: RegExp | null }[] = [
    { name: 'an ordinary new file', candidate: candidate('src/a.ts'), refused: null },
    {
      name: 'a file ignored before the work',
      candidate: candidate('dist/a.js', { ignoredBefore: true }),
      refused: /ignored/,
    },
    {
      name: 'a tracked file that matches an ignore rule (only new paths are judged)',
      candidate: candidate('dist/a.js', { change: 'modified', ignoredBefore: true }),
      refused: null,
    },
    {
      name: 'a file over the limit',
      candidate: candidate('big.txt', { bytes: 1001 }),
      refused: /max-file-bytes \(1000\)/,
    },
    { name: 'a file at the limit', candidate: candidate('big.txt', { bytes: 1000 }), refused: null },
    { name: '.env', candidate: candidate('.env'), refused: /environment file/ },
    { name: '.env.production in a folder', candidate: candidate('app/.env.production'), refused: /environment file/ },
    { name: '.env.example (a template)', candidate: candidate('.env.example'), refused: null },
    {
      name: 'a token in a template',
      candidate: candidate('.env.example', { text: `TOKEN=${TOKEN}` }),
      refused: /GitHub token/,
    },
    { name: 'id_rsa', candidate: candidate('keys/id_rsa'), refused: /SSH private key/ },
    { name: 'id_rsa.pub', candidate: candidate('keys/id_rsa.pub'), refused: null },
    {
      name: 'a private key block in a .pem',
      candidate: candidate('deploy.pem', { text: KEY }),
      refused: /private key/,
    },
    {
      name: 'a certificate .pem',
      candidate: candidate('ca.pem', { text: '-----BEGIN CERTIFICATE-----' }),
      refused: null,
    },
    {
      name: 'a GitHub token in source',
      candidate: candidate('src/a.ts', { text: `const t = '${TOKEN}'` }),
      refused: /GitHub token/,
    },
    {
      name: 'a fine-grained GitHub token',
      candidate: candidate('a.txt', { text: `github_pat_${'x'.repeat(30)}` }),
      refused: /GitHub token/,
    },
    {
      name: 'an Anthropic key',
      candidate: candidate('a.txt', { text: `sk-ant-api03-${'x'.repeat(30)}` }),
      refused: /Anthropic/,
    },
    {
      name: 'an OpenAI project key',
      candidate: candidate('a.txt', { text: `sk-proj-${'x'.repeat(30)}` }),
      refused: /OpenAI/,
    },
    { name: 'an AWS access key id', candidate: candidate('a.txt', { text: 'AKIAABCDEFGHIJKLMNOP' }), refused: /AWS/ },
    {
      name: 'a deleted .env',
      candidate: candidate('.env', { change: 'deleted', text: null, bytes: 0 }),
      refused: null,
    },
    {
      name: 'a new workflow',
      candidate: candidate('.github/workflows/ci.yml'),
      refused: /allow-workflows.*workflow scope/,
    },
    {
      name: 'a deleted workflow',
      candidate: candidate('.github/workflows/ci.yml', { change: 'deleted' }),
      refused: /workflow/,
    },
    {
      name: 'a workflow when allowed',
      candidate: candidate('.github/workflows/ci.yml'),
      rules: { allowWorkflows: true },
      refused: null,
    },
    {
      name: 'a workflow is not allowed by allow-paths',
      candidate: candidate('.github/workflows/ci.yml'),
      rules: { allowPaths: ['.github/**'] },
      refused: /workflow/,
    },
    {
      name: '.env allowed by a glob',
      candidate: candidate('config/.env'),
      rules: { allowPaths: ['config/*'] },
      refused: null,
    },
    {
      name: 'a large ignored file allowed by a glob',
      candidate: candidate('vendor/lib.js', { bytes: 5000, ignoredBefore: true }),
      rules: { allowPaths: ['vendor/**'] },
      refused: null,
    },
  ]
  for (const { name, candidate: c, rules: over, refused } of cases) {
    it(name, () => {
      const result = refuseFromCommit([c], { ...rules, ...over })
      if (refused === null) expect(result).toEqual([])
      else {
        expect(result).toHaveLength(1)
        expect(`${result[0]?.reason}; ${result[0]?.remedy}`).toMatch(refused)
        expect(result[0]?.path).toBe(c.path)
      }
    })
  }

  it('every refusal says what to do', () => {
    const all = refuseFromCommit(
      cases.map((c) => c.candidate),
      rules,
    )
    for (const r of all) expect(r.remedy).toMatch(/commit\.|yourself|revoke/)
  })
})

describe('a .gitignore change that un-ignores files', () => {
  it('is refused with them, so the rules at HEAD keep hiding them', () => {
    const refused = refuseFromCommit(
      [
        candidate('.gitignore', { change: 'modified' }),
        candidate('private/notes.txt', { ignoredBefore: true }),
        candidate('src/a.ts'),
      ],
      rules,
    )
    expect(refused.map((r) => r.path)).toEqual(['private/notes.txt', '.gitignore'])
    expect(refused[1]?.reason).toMatch(/would un-ignore private\/notes\.txt/)
  })

  it('is committed when it un-ignores nothing present', () => {
    expect(refuseFromCommit([candidate('.gitignore', { change: 'modified' })], rules)).toEqual([])
  })
})

describe('credentialShape', () => {
  it('names nothing in ordinary text', () => {
    expect(credentialShape('README.md', 'Set GITHUB_TOKEN in the workflow; see sk-learn docs.')).toBeNull()
  })
})
