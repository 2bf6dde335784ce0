import { describe, expect, it } from 'vitest'
import { isSecretName, secretValuesInEnv } from '../../../src/domain/secret-names.js'

describe('isSecretName', () => {
  // The union of the two rules that existed before: the command environment's (exact runner names,
  // INPUT_*, the OIDC pair, TOKEN/SECRET/PASSWORD/PASSWD/KEY/CREDENTIAL) and the CLI redactor's
  // (TOKEN/SECRET/PASSWORD/API_KEY/PRIVATE).
  const table: Array<{ name: string; secret: boolean }> = [
    { name: 'GITHUB_TOKEN', secret: true },
    { name: 'github_token', secret: true },
    { name: 'GH_TOKEN', secret: true },
    { name: 'ACTIONS_RUNTIME_TOKEN', secret: true },
    { name: 'ACTIONS_RUNTIME_URL', secret: true },
    { name: 'ACTIONS_RESULTS_URL', secret: true },
    { name: 'actions_cache_url', secret: true },
    { name: 'ACTIONS_ID_TOKEN_REQUEST_URL', secret: true },
    { name: 'ACTIONS_ID_TOKEN_REQUEST_TOKEN', secret: true },
    { name: 'INPUT_GITHUB-TOKEN', secret: true },
    { name: 'INPUT_WORK', secret: true },
    { name: 'NPM_TOKEN', secret: true },
    { name: 'MY_DEPLOY_TOKEN', secret: true },
    { name: 'ANTHROPIC_API_KEY', secret: true },
    { name: 'Api_Key', secret: true },
    { name: 'OPENAI_APIKEY', secret: true },
    { name: 'SSH_KEY', secret: true },
    { name: 'KEYBOARD_LAYOUT', secret: true },
    { name: 'CLIENT_SECRET', secret: true },
    { name: 'aws_secret_access_key', secret: true },
    { name: 'DB_PASSWORD', secret: true },
    { name: 'FTP_PASSWD', secret: true },
    { name: 'GOOGLE_APPLICATION_CREDENTIALS', secret: true },
    { name: 'SIGNING_PRIVATE', secret: true },
    { name: 'PRIVATE_REGISTRY', secret: true },
    { name: 'PATH', secret: false },
    { name: 'HOME', secret: false },
    { name: 'TERM', secret: false },
    { name: 'CI', secret: false },
    { name: 'GITHUB_REPOSITORY', secret: false },
    { name: 'GITHUB_SERVER_URL', secret: false },
    { name: 'ACTIONS_STEP_DEBUG', secret: false },
    { name: 'RUNNER_TEMP', secret: false },
    { name: 'LOOP_ITERATION', secret: false },
  ]

  it.each(table)('$name is a secret: $secret', ({ name, secret }) => {
    expect(isSecretName(name)).toBe(secret)
  })
})

describe('secretValuesInEnv', () => {
  it('returns the non-empty values of secret-named variables only', () => {
    const env = { PATH: '/bin', MY_DEPLOY_TOKEN: 'deploy-secret', EMPTY_TOKEN: '', UNSET_KEY: undefined, LANG: 'C' }
    expect(secretValuesInEnv(env)).toEqual(['deploy-secret'])
  })
})
