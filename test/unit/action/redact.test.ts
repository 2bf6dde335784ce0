import { describe, expect, it } from 'vitest'
import {
  createRedactor,
  neutraliseWorkflowCommands,
  redactionLabel,
  SECRET_MASK,
  secretForms,
  ZERO_WIDTH_SPACE,
} from '../../../src/domain/redact.js'

const redactShapes = createRedactor([])

describe('token shapes', () => {
  const cases: Array<{ name: string; text: string; secret: string; kind: string; kept?: string }> = [
    { name: 'GitHub classic PAT', text: 'token ghp_', secret: `ghp_${'a1B2'.repeat(9)}`, kind: 'github-token' },
    { name: 'GitHub OAuth', text: '', secret: `gho_${'Z9y8'.repeat(9)}`, kind: 'github-token' },
    { name: 'GitHub user-to-server', text: '', secret: `ghu_${'Q'.repeat(36)}`, kind: 'github-token' },
    { name: 'GitHub server-to-server', text: '', secret: `ghs_${'x'.repeat(36)}`, kind: 'github-token' },
    { name: 'GitHub refresh', text: '', secret: `ghr_${'7'.repeat(36)}`, kind: 'github-token' },
    { name: 'GitHub fine-grained', text: '', secret: `github_pat_11ABCDEFG0${'a'.repeat(70)}`, kind: 'github-token' },
    { name: 'npm', text: '', secret: `npm_${'abcDEF123'.repeat(4)}`, kind: 'npm-token' },
    { name: 'AWS key id', text: '', secret: 'AKIAIOSFODNN7EXAMPLE', kind: 'aws-access-key-id' },
    { name: 'OpenAI', text: '', secret: `sk-${'A'.repeat(48)}`, kind: 'openai-key' },
    { name: 'OpenAI project', text: '', secret: `sk-proj-${'b_C-'.repeat(20)}`, kind: 'openai-key' },
    { name: 'Anthropic', text: '', secret: `sk-ant-api03-${'q'.repeat(80)}`, kind: 'anthropic-key' },
    { name: 'Slack bot', text: '', secret: 'xoxb-123456789012-abcdefghijkl', kind: 'slack-token' },
    {
      name: 'JWT',
      text: '',
      secret: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
      kind: 'jwt',
    },
  ]
  it.each(cases)('redacts a $name', ({ secret, kind }) => {
    const text = `before ${secret} after\nnext line`
    const out = redactShapes(text)
    expect(out).not.toContain(secret)
    expect(out).toBe(`before ${redactionLabel(kind)} after\nnext line`)
  })

  const prefixed: Array<{ name: string; text: string; kept: string; secret: string; kind: string }> = [
    {
      name: 'AWS secret key',
      text: 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      kept: 'aws_secret_access_key = ',
      secret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      kind: 'aws-secret-access-key',
    },
    {
      name: 'Authorization header',
      text: 'Authorization: Bearer abc.def-ghi',
      kept: 'Authorization: Bearer ',
      secret: 'abc.def-ghi',
      kind: 'authorization',
    },
    {
      name: 'Authorization token header',
      text: 'authorization: token 0123456789abcdef',
      kept: 'authorization: token ',
      secret: '0123456789abcdef',
      kind: 'authorization',
    },
    {
      name: 'credentials in a URL',
      text: 'https://x-access-token:s3cr3tvalue@github.com/o/r.git',
      kept: 'https://x-access-token:',
      secret: 's3cr3tvalue',
      kind: 'url-credentials',
    },
  ]
  it.each(prefixed)('redacts the value of $name and keeps the prefix', ({ text, kept, secret, kind }) => {
    const out = redactShapes(text)
    expect(out).not.toContain(secret)
    expect(out.startsWith(`${kept}${redactionLabel(kind)}`)).toBe(true)
  })

  it('redacts a whole private key block and a block cut short', () => {
    const block = '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----'
    expect(redactShapes(`a\n${block}\nb`)).toBe(`a\n${redactionLabel('private-key')}\nb`)
    expect(redactShapes('x\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk')).toBe(
      `x\n${redactionLabel('private-key')}`,
    )
  })

  it('leaves ordinary text alone', () => {
    const text = 'risk-assessment task-runner sk-short ghp_tooShort Bearer of bad news eyJ'
    expect(redactShapes(text)).toBe(text)
  })

  it('stays fast on long adversarial input', () => {
    const text = `${'-----BEGIN A '.repeat(2000)}${'eyJ'.repeat(20000)}${'sk-'.repeat(20000)}`
    const started = performance.now()
    redactShapes(text)
    expect(performance.now() - started).toBeLessThan(2000)
  })
})

describe('known secrets', () => {
  const secret = 'hunter2-is-my-password'
  const redact = createRedactor([secret, 'ab', ''])
  const cases = [
    { form: 'raw', text: `pw=${secret};` },
    { form: 'base64', text: `pw=${Buffer.from(secret).toString('base64')};` },
    { form: 'base64 inside a longer text (offset 1)', text: Buffer.from(`x${secret}yz`).toString('base64') },
    { form: 'base64 inside a longer text (offset 2)', text: Buffer.from(`xy${secret}z`).toString('base64') },
    { form: 'URL-encoded', text: `u=${encodeURIComponent('p@ss w/rd!')}` },
  ]
  it.each(cases)('masks the $form form', ({ text }) => {
    const r = createRedactor([secret, 'p@ss w/rd!'])
    const out = r(text)
    expect(out).toContain(SECRET_MASK)
    expect(out).not.toContain(secret)
    expect(out).not.toContain(Buffer.from(secret).toString('base64').slice(4, 20))
  })

  it('ignores secrets too short to mask safely', () => {
    expect(redact('a b ab abc')).toBe('a b ab abc')
  })

  it('masks a secret that contains another whole', () => {
    const r = createRedactor(['abcd', 'abcdefgh'])
    expect(r('x abcdefgh y')).toBe(`x ${SECRET_MASK} y`)
  })

  it('treats regex metacharacters in secrets literally', () => {
    const r = createRedactor(['a.b*c+d?(e)'])
    expect(r('a.b*c+d?(e) and axbbbcd')).toBe(`${SECRET_MASK} and axbbbcd`)
  })

  it('lists the forms of a secret', () => {
    const forms = secretForms('p@ss w/rd!')
    expect(forms).toContain('p@ss w/rd!')
    expect(forms).toContain(encodeURIComponent('p@ss w/rd!'))
    expect(forms).toContain(Buffer.from('p@ss w/rd!').toString('base64').replace(/=+$/, ''))
  })
})

describe('neutraliseWorkflowCommands', () => {
  const z = ZERO_WIDTH_SPACE
  const cases = [
    { text: '::set-output name=x::1', expected: `:${z}:set-output name=x::1` },
    { text: 'ok\n::add-mask::abc\nok', expected: `ok\n:${z}:add-mask::abc\nok` },
    { text: '  ::stop-commands::token', expected: `  :${z}:stop-commands::token` },
    { text: 'a\r\n::error file=x::boom', expected: `a\r\n:${z}:error file=x::boom` },
    { text: '##[set-env name=A;]b', expected: `#${z}#[set-env name=A;]b` },
    { text: 'not at start ::warning::x', expected: 'not at start ::warning::x' },
    { text: 'C++ std::vector', expected: 'C++ std::vector' },
  ]
  it.each(cases)('defuses $text', ({ text, expected }) => {
    expect(neutraliseWorkflowCommands(text)).toBe(expected)
  })
})
