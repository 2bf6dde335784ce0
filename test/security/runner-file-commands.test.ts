/**
 * The runner file-command attack through the CLI's front door, run inside a workflow step: the work
 * command (the agent), a check and its fix each list `$RUNNER_TEMP/_runner_file_commands` (they get none
 * of the variables) and append an LD_PRELOAD to GITHUB_ENV, a folder to GITHUB_PATH, a forged output, a
 * GITHUB_STATE entry and summary text. When the CLI ends, the step's files are as it found them, and each
 * plant was said on stderr naming the file and the command. (The action's jobs: test/e2e/runner-file-commands.test.ts.)
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { runCli } from '../../src/cli/main.js'
import { RUNNER_FILE_COMMANDS } from '../../src/domain/runner-file-commands.js'
import { projectRoot, tempRepo } from '../integration/cli/helpers.js'

const PLANT = `#!/bin/sh
dir="$RUNNER_TEMP/_runner_file_commands"
env > "$OUT/$1.env"
echo "LD_PRELOAD=/tmp/evil-$1.so" >> "$dir"/set_env_1
echo "/tmp/evil-bin-$1" >> "$dir"/add_path_1
echo "status=complete" >> "$dir"/set_output_1
echo "token=stolen-$1" >> "$dir"/save_state_1
echo "## Forged by $1" >> "$dir"/step_summary_1
`

describe('the runner file commands under the CLI in a workflow step', () => {
  it('a work command, a check and a fix that plant leave the step’s files as the CLI found them, each said', async () => {
    const out = mkdtempSync(join(tmpdir(), 'loop-runner-files-out-'))
    const temp = mkdtempSync(join(tmpdir(), 'loop-runner-temp-'))
    const folder = join(temp, '_runner_file_commands')
    mkdirSync(folder)
    const files = {
      GITHUB_ENV: join(folder, 'set_env_1'),
      GITHUB_PATH: join(folder, 'add_path_1'),
      GITHUB_OUTPUT: join(folder, 'set_output_1'),
      GITHUB_STATE: join(folder, 'save_state_1'),
      GITHUB_STEP_SUMMARY: join(folder, 'step_summary_1'),
    }
    // What an earlier write of the step (the runner's, a step of the workflow) left: kept as it is.
    for (const path of Object.values(files)) writeFileSync(path, '')
    writeFileSync(files.GITHUB_OUTPUT, 'earlier=kept\n')
    const repo = tempRepo({
      files: {
        'plant.sh': PLANT,
        '.github/loop.yml': [
          'work:',
          '  run: sh plant.sh work && echo done > result.txt',
          'checks:',
          '  - name: format',
          '    kind: format',
          '    run: sh plant.sh check && test -f result.txt',
          '    fix: sh plant.sh fix',
          '    pre: true',
          '',
        ].join('\n'),
      },
    })
    chmodSync(join(repo, 'plant.sh'), 0o755)
    let stderr = ''
    const code = await runCli(['run', '--loop-id', 'planted', '--max-iterations', '3'], {
      stdout: () => {},
      stderr: (text) => {
        stderr += text
      },
      stdin: new PassThrough(),
      isTTY: false,
      cwd: repo,
      env: {
        PATH: `${join(projectRoot, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`,
        HOME: out,
        OUT: out,
        RUNNER_TEMP: temp,
        GITHUB_ACTIONS: 'true',
        ...files,
      },
    })
    expect(code, stderr).toBe(0)
    expect(readFileSync(files.GITHUB_OUTPUT, 'utf8')).toBe('earlier=kept\n')
    for (const path of [files.GITHUB_ENV, files.GITHUB_PATH, files.GITHUB_STATE, files.GITHUB_STEP_SUMMARY]) {
      expect(readFileSync(path, 'utf8'), path).toBe('')
    }
    for (const who of ['work', 'check', 'fix']) {
      const env = readFileSync(join(out, `${who}.env`), 'utf8')
      const names = env.split('\n').map((line) => line.slice(0, line.indexOf('=')))
      for (const name of RUNNER_FILE_COMMANDS) expect(names, `${who} got ${name}`).not.toContain(name)
      expect(stderr).toContain(`warning: the command 'sh plant.sh ${who}`)
      expect(stderr).toContain(`LD_PRELOAD=/tmp/evil-${who}.so`)
    }
    for (const name of RUNNER_FILE_COMMANDS) expect(stderr).toContain(`runner's ${name} file`)
  })
})
