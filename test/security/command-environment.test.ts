/**
 * Planted attacks on the controller's environment (issue 15, points 1 and 3): the work command (the
 * agent), a check and a fix dump every variable they get, and the work plants a git hook that would
 * read the controller's environment during the checkpoint commit. The controller holds the runner's
 * tokens as a job does. Only a name the config passes (`pass-env`) gets through; the hook never runs.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { runCli } from '../../src/cli/main.js'
import { git, projectRoot, tempRepo } from '../integration/cli/helpers.js'

const RUNNER_SECRETS = {
  ACTIONS_RUNTIME_TOKEN: 'zq-runtime-token-6b1f',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'zq-oidc-request-token-93aa',
  ACTIONS_ID_TOKEN_REQUEST_URL: 'https://token.actions.example/zq-oidc-url-0c4e',
  ACTIONS_RESULTS_URL: 'https://results.example/zq-results-url-7d21',
  GITHUB_TOKEN: 'zq-github-token-55c8',
  'INPUT_GITHUB-TOKEN': 'zq-input-token-a0f3',
  NPM_TOKEN: 'zq-npm-token-11be',
}
const PASSED = { DEPLOY_KEY_FOR_TESTS: 'zq-passed-by-name-7e90' }

describe('the environment of the project`s commands', () => {
  it('no runner token reaches the work, a check or a fix unless passed by name; a planted hook never runs', async () => {
    const out = mkdtempSync(join(tmpdir(), 'loop-env-dumps-'))
    const repo = tempRepo({
      files: {
        // The agent: dumps its environment and plants a post-commit hook that dumps the committer's.
        'work.sh': [
          '#!/bin/sh',
          `env > ${out}/work.env`,
          'mkdir -p .git/hooks',
          `printf '#!/bin/sh\\nenv > ${out}/hook.env\\n' > .git/hooks/post-commit`,
          'chmod +x .git/hooks/post-commit',
          'echo done > result.txt',
          '',
        ].join('\n'),
        '.github/loop.yml': [
          'work:',
          '  run: sh work.sh',
          '  pass-env: [DEPLOY_KEY_FOR_TESTS]',
          'checks:',
          '  - name: format',
          '    kind: format',
          `    run: env > ${out}/check.env && test -f result.txt`,
          `    fix: env > ${out}/fix.env`,
          '    pre: true',
          '',
        ].join('\n'),
      },
    })
    chmodSync(join(repo, 'work.sh'), 0o755)
    mkdirSync(join(repo, '.git', 'hooks'), { recursive: true })
    const code = await runCli(['run', '--loop-id', 'env', '--max-iterations', '3'], {
      stdout: () => {},
      stderr: () => {},
      stdin: new PassThrough(),
      isTTY: false,
      cwd: repo,
      env: {
        PATH: `${join(projectRoot, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`,
        HOME: out,
        GITHUB_ACTIONS: 'true',
        ...RUNNER_SECRETS,
        ...PASSED,
      },
    })
    expect(code).toBe(0)
    expect(git(repo, 'log', '--format=%s')).toMatch(/loop\(env\): iteration 1/)
    expect(existsSync(join(out, 'hook.env'))).toBe(false)
    for (const dump of ['work.env', 'check.env', 'fix.env']) {
      const env = readFileSync(join(out, dump), 'utf8')
      for (const [name, value] of Object.entries(RUNNER_SECRETS)) {
        expect(env, `${dump} has ${name}`).not.toContain(value)
      }
      expect(env, dump).toContain(`DEPLOY_KEY_FOR_TESTS=${PASSED.DEPLOY_KEY_FOR_TESTS}`)
    }
  })
})
