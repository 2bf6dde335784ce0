import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { descriptionPath, githubDescription } from '../sandbox/openapi.js'
import { CHECKED_FORMATS, numberFormatProblem, stringFormatProblem } from '../sandbox/schema-formats.js'

const description = githubDescription()
const problemsOf = (schemaName: string, value: unknown) =>
  description.validate({ $ref: `#/components/schemas/${schemaName}` }, value, 'response')

/** `simple-user` of the Actions bot exactly as api.github.com sends it. */
const actionsBot = (encode: (login: string) => string) => {
  const api = `https://api.github.com/users/${encode('github-actions[bot]')}`
  return {
    login: 'github-actions[bot]',
    id: 41898282,
    node_id: 'MDM6Qm90NDE4OTgyODI=',
    avatar_url: 'https://avatars.githubusercontent.com/in/15368?v=4',
    gravatar_id: '',
    url: api,
    html_url: 'https://github.com/apps/github-actions',
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: 'Bot',
    user_view_type: 'public',
    site_admin: false,
  }
}

describe('strict formats of GitHub description', () => {
  it('accepts the Actions bot as GitHub sends it and flags the unencoded brackets a lax check lets through', () => {
    expect(problemsOf('simple-user', actionsBot(encodeURIComponent))).toEqual([])
    const unencoded = problemsOf(
      'simple-user',
      actionsBot((login) => login),
    )
    expect(unencoded).toContain(
      'response.url: "https://api.github.com/users/github-actions[bot]" is not an RFC 3986 URI (absolute, reserved characters percent-encoded)',
    )
    // url, followers, subscriptions, organizations, repos and received_events; RFC 6570 templates allow brackets.
    expect(unencoded).toHaveLength(6)
    // The old check: `new URL()` takes it.
    expect(() => new URL('https://api.github.com/users/github-actions[bot]')).not.toThrow()
  })

  it.each([
    ['https://api.github.com/repos/o/r/issues/1', true],
    ['http://127.0.0.1:4100/users/github-actions%5Bbot%5D', true],
    ['http://[::1]:8080/x?q=a/b?c#frag', true],
    ['mailto:someone@example.com', true],
    ['urn:isbn:0451450523', true],
    ['https://api.github.com/users/github-actions[bot]', false],
    ['https://example.com/a b', false],
    ['https://example.com/%zz', false],
    ['https://example.com/a|b', false],
    ['https://exa mple.com/', false],
    ['/relative/path', false],
    ['https://[not-an-ip]/', false],
    ['https://example.com/ü', false],
  ])('uri %s is %s', (value, valid) => {
    expect(stringFormatProblem('uri', value) === undefined).toBe(valid)
  })

  it.each([
    ['https://api.github.com/users/octocat/following{/other_user}', true],
    ['https://api.github.com/repos/o/r/git/refs{/sha}', true],
    ['https://x/{?page,per_page}', true],
    ['https://x/{var:3}{list*}', true],
    ['https://x/{unclosed', false],
    ['https://x/{bad var}', false],
    ['https://x/a b', false],
    ['https://x/100%', false],
  ])('uri-template %s is %s', (value, valid) => {
    expect(stringFormatProblem('uri-template', value) === undefined).toBe(valid)
  })

  it.each([
    ['2026-11-25T20:15:34Z', true],
    ['2026-11-25T20:15:34.123+01:00', true],
    ['2024-02-29T00:00:00Z', true],
    ['2016-12-31T23:59:60Z', true],
    ['2026-11-25 20:15:34Z', false],
    ['2026-11-25T20:15:34', false],
    ['2025-02-29T00:00:00Z', false],
    ['2026-13-01T00:00:00Z', false],
    ['2026-11-25T24:00:00Z', false],
    ['2026-11-25T20:15:34+0100', false],
  ])('date-time %s is %s', (value, valid) => {
    expect(stringFormatProblem('date-time', value) === undefined).toBe(valid)
  })

  it.each([
    ['octocat@github.com', true],
    ['41898282+github-actions@users.noreply.github.com', true],
    ['"quoted local"@example.com', true],
    ['41898282+github-actions[bot]@users.noreply.github.com', false],
    ['no-at-sign', false],
    ['two@@example.com', false],
    ['dot.@example.com', false],
    ['a@-bad-.com', false],
  ])('email %s is %s', (value, valid) => {
    expect(stringFormatProblem('email', value) === undefined).toBe(valid)
  })

  it('checks dates, integers by width, and owner/name', () => {
    expect(stringFormatProblem('date', '2026-02-29')).toBe('an RFC 3339 full-date')
    expect(stringFormatProblem('date', '2028-02-29')).toBeUndefined()
    expect(numberFormatProblem('int32', 2 ** 31)).toBe('a 32-bit integer')
    expect(numberFormatProblem('int32', -(2 ** 31))).toBeUndefined()
    expect(numberFormatProblem('int64', 1.5)).toBe('a 64-bit integer')
    expect(numberFormatProblem('int64', Number.MAX_SAFE_INTEGER)).toBeUndefined()
    expect(stringFormatProblem('repo.nwo', 'octo-org/octo-repo')).toBeUndefined()
    expect(stringFormatProblem('repo.nwo', 'octo-repo')).toBe("a repository as 'owner/name'")
  })

  it('checks every format the description uses, except raw bodies', () => {
    const used = new Set<string>()
    const walk = (node: unknown): void => {
      if (node === null || typeof node !== 'object') return
      const format = (node as { format?: unknown }).format
      if (typeof format === 'string') used.add(format)
      for (const child of Object.values(node)) walk(child)
    }
    walk(JSON.parse(readFileSync(descriptionPath(), 'utf8')))
    // `binary` is the raw upload body of a release asset: no JSON value to check.
    const unchecked = [...used].filter((format) => !CHECKED_FORMATS.includes(format) && format !== 'binary')
    expect(unchecked).toEqual([])
    expect(used.size).toBe(CHECKED_FORMATS.length + 1)
  })
})
