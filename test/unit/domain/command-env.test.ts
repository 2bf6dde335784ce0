import { describe, expect, it } from 'vitest'
import { buildCommandEnv, withPathFirst } from '../../../src/domain/command-env.js'

const base: NodeJS.ProcessEnv = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/runner',
  LANG: 'C.UTF-8',
  CI: 'true',
  GITHUB_REPOSITORY: 'octo/repo',
  GITHUB_WORKSPACE: '/work',
  RUNNER_TEMP: '/tmp/runner',
  GITHUB_TOKEN: 'ghs_secret',
  GH_TOKEN: 'ghs_secret2',
  'INPUT_GITHUB-TOKEN': 'ghs_input',
  INPUT_WORK: 'claude -p',
  ACTIONS_RUNTIME_TOKEN: 'rt',
  ACTIONS_ID_TOKEN_REQUEST_URL: 'https://oidc',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc-token',
  ACTIONS_RESULTS_URL: 'https://results',
  ACTIONS_CACHE_URL: 'https://cache',
  ANTHROPIC_API_KEY: 'sk-ant',
  NPM_TOKEN: 'npm_x',
  DB_PASSWORD: 'hunter2',
  MY_SECRET_THING: 's',
  aws_secret_access_key: 'lower',
  UNSET: undefined,
}

describe('buildCommandEnv', () => {
  const table: Array<{ name: string; passEnv: string[]; kept: boolean }> = [
    { name: 'PATH', passEnv: [], kept: true },
    { name: 'HOME', passEnv: [], kept: true },
    { name: 'LANG', passEnv: [], kept: true },
    { name: 'CI', passEnv: [], kept: true },
    { name: 'GITHUB_REPOSITORY', passEnv: [], kept: true },
    { name: 'GITHUB_WORKSPACE', passEnv: [], kept: true },
    { name: 'RUNNER_TEMP', passEnv: [], kept: true },
    { name: 'GITHUB_TOKEN', passEnv: [], kept: false },
    { name: 'GH_TOKEN', passEnv: [], kept: false },
    { name: 'INPUT_GITHUB-TOKEN', passEnv: [], kept: false },
    { name: 'INPUT_WORK', passEnv: [], kept: false },
    { name: 'ACTIONS_RUNTIME_TOKEN', passEnv: [], kept: false },
    { name: 'ACTIONS_ID_TOKEN_REQUEST_URL', passEnv: [], kept: false },
    { name: 'ACTIONS_ID_TOKEN_REQUEST_TOKEN', passEnv: [], kept: false },
    { name: 'ACTIONS_RESULTS_URL', passEnv: [], kept: false },
    { name: 'ACTIONS_CACHE_URL', passEnv: [], kept: false },
    { name: 'ANTHROPIC_API_KEY', passEnv: [], kept: false },
    { name: 'NPM_TOKEN', passEnv: [], kept: false },
    { name: 'DB_PASSWORD', passEnv: [], kept: false },
    { name: 'MY_SECRET_THING', passEnv: [], kept: false },
    { name: 'aws_secret_access_key', passEnv: [], kept: false },
    { name: 'ANTHROPIC_API_KEY', passEnv: ['ANTHROPIC_API_KEY'], kept: true },
    { name: 'GITHUB_TOKEN', passEnv: ['GITHUB_TOKEN'], kept: true },
    { name: 'GITHUB_TOKEN', passEnv: ['GH_TOKEN'], kept: false },
    { name: 'UNSET', passEnv: ['UNSET'], kept: false },
  ]

  it.each(table)('$name with passEnv $passEnv is kept: $kept', ({ name, passEnv, kept }) => {
    const env = buildCommandEnv(base, { passEnv, extra: {} })
    expect(name in env).toBe(kept)
    if (kept) expect(env[name]).toBe(base[name])
  })

  it('sets extra variables on top, even over a kept one', () => {
    const env = buildCommandEnv(base, { passEnv: [], extra: { LOOP_ITERATION: '3', CI: 'loop' } })
    expect(env.LOOP_ITERATION).toBe('3')
    expect(env.CI).toBe('loop')
  })
})

describe('withPathFirst / buildCommandEnv pathFirst', () => {
  const table: Array<{
    name: string
    env: Record<string, string>
    dirs: string[]
    delimiter: string
    expected: Record<string, string>
  }> = [
    {
      name: 'puts the folder in front of PATH',
      env: { PATH: '/usr/bin:/bin' },
      dirs: ['/repo/node_modules/.bin'],
      delimiter: ':',
      expected: { PATH: '/repo/node_modules/.bin:/usr/bin:/bin' },
    },
    {
      name: 'makes PATH when there is none',
      env: { HOME: '/h' },
      dirs: ['/repo/node_modules/.bin'],
      delimiter: ':',
      expected: { HOME: '/h', PATH: '/repo/node_modules/.bin' },
    },
    {
      name: 'moves a folder already on PATH to the front, once',
      env: { PATH: '/usr/bin:/repo/node_modules/.bin:/bin' },
      dirs: ['/repo/node_modules/.bin'],
      delimiter: ':',
      expected: { PATH: '/repo/node_modules/.bin:/usr/bin:/bin' },
    },
    {
      name: "keeps Windows' spelling and delimiter",
      env: { Path: 'C:\\Windows;C:\\bin' },
      dirs: ['C:\\repo\\node_modules\\.bin'],
      delimiter: ';',
      expected: { Path: 'C:\\repo\\node_modules\\.bin;C:\\Windows;C:\\bin' },
    },
    {
      name: 'keeps the order of several folders',
      env: { PATH: '/bin' },
      dirs: ['/a', '/b', '/a'],
      delimiter: ':',
      expected: { PATH: '/a:/b:/bin' },
    },
  ]

  it.each(table)('$name', ({ env, dirs, delimiter, expected }) => {
    expect(withPathFirst(env, dirs, delimiter)).toEqual(expected)
  })

  it('buildCommandEnv applies pathFirst after extra, so a PATH in extra is also prefixed', () => {
    const env = buildCommandEnv(base, {
      passEnv: [],
      extra: { PATH: '/opt/bin' },
      pathFirst: { dirs: ['/repo/node_modules/.bin'], delimiter: ':' },
    })
    expect(env.PATH).toBe('/repo/node_modules/.bin:/opt/bin')
    expect(buildCommandEnv(base, { passEnv: [], extra: {} }).PATH).toBe('/usr/bin:/bin')
  })
})
