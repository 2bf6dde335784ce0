import { describe, expect, it } from 'vitest'
import { actionSecretValues, withSecretsPassed } from '../../../src/action/loop-config.js'
import { type EventContext, parseActionInputs } from '../../../src/config/action-inputs.js'
import { validateLoopConfig } from '../../../src/config/load-config.js'

const noEvent: EventContext = { eventName: 'workflow_dispatch', payload: {}, runId: 1 }
const config = validateLoopConfig(
  { work: { run: 'claude -p', 'pass-env': ['CI_FLAG'] }, checks: [{ name: 'unit', run: 'npm test' }] },
  'test',
)

describe('the secrets input', () => {
  it.each([
    ['a project secret reaches work and checks', { DB_PASSWORD: 'p' }, ['CI_FLAG', 'DB_PASSWORD'], []],
    ['an agent key reaches the work command alone', { ANTHROPIC_API_KEY: 'k' }, ['CI_FLAG'], ['ANTHROPIC_API_KEY']],
    ['both, split', { OPENAI_API_KEY: 'k', NPM_TOKEN: 't' }, ['CI_FLAG', 'NPM_TOKEN'], ['OPENAI_API_KEY']],
  ])('%s', (_label, secrets, passEnv, agentOnly) => {
    const passed = withSecretsPassed(config, secrets)
    expect(passed.work['pass-env']).toEqual(passEnv)
    expect(passed.work.secrets).toEqual(agentOnly)
  })
})

describe('what the action masks', () => {
  it('its tokens and secrets inputs, and secret-named variables of the step env, but not other inputs', () => {
    const all: Record<string, string> = {
      'github-token': 'tok-12345678',
      work: 'npm run work-command',
      verify: 'npm test',
    }
    const settings = parseActionInputs((name) => all[name] ?? '', noEvent)
    const env = {
      ANTHROPIC_API_KEY: 'key-from-step-env-123',
      'INPUT_GITHUB-TOKEN': 'tok-12345678',
      INPUT_WORK: 'npm run work-command',
      INPUT_VERIFY: 'npm test',
      HOME: '/home/runner',
    }
    expect(actionSecretValues(settings, env).sort()).toEqual(['key-from-step-env-123', 'tok-12345678'])
  })
})
