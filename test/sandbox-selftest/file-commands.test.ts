// The runner's file commands as a job's steps see them: GITHUB_ENV (name=value and name<<DELIMITER, NODE_OPTIONS
// refused with an error annotation), GITHUB_PATH (each step's lines lead the later steps' PATH), GITHUB_OUTPUT
// (steps.<id>.outputs), GITHUB_STEP_SUMMARY; and what the job record keeps of them for a test to assert.
import { afterEach, describe, expect, it } from 'vitest'
import { NODE_OPTIONS_REFUSED } from '../sandbox/runner-files.js'
import { type Sandbox, startSandbox } from '../sandbox/sandbox.js'
import { REPO_FILES, TEST_ACTION_DIR } from './fixtures.js'

let sandbox: Sandbox | undefined
afterEach(async () => {
  await sandbox?.stop()
  sandbox = undefined
})

const WORKFLOW = `name: files
on: workflow_dispatch
permissions:
  contents: read
jobs:
  steps:
    runs-on: ubuntu-latest
    steps:
      - id: first
        run: |
          echo "PLAIN=one" >> "$GITHUB_ENV"
          printf 'MULTI<<EOF_7\\nline 1\\nline 2\\nEOF_7\\n' >> "$GITHUB_ENV"
          echo "NODE_OPTIONS=--require /tmp/evil.js" >> "$GITHUB_ENV"
          echo /opt/first-a >> "$GITHUB_PATH"
          echo /opt/first-b >> "$GITHUB_PATH"
          echo "answer=42" >> "$GITHUB_OUTPUT"
          echo "first summary" >> "$GITHUB_STEP_SUMMARY"
      - id: second
        run: |
          echo /opt/second >> "$GITHUB_PATH"
          echo /opt/first-a >> "$GITHUB_PATH"
          echo "seen=$PLAIN|$(echo "$MULTI" | tr '\\n' '+')|\${NODE_OPTIONS:-unset}|\${{ steps.first.outputs.answer }}" >> "$GITHUB_OUTPUT"
      - id: third
        run: echo "path=$PATH" >> "$GITHUB_OUTPUT"
`

describe('file commands between steps', () => {
  it('apply to the later steps as the runner applies them, and the job record keeps them', async () => {
    sandbox = await startSandbox({
      actionDir: TEST_ACTION_DIR,
      repoFiles: { ...REPO_FILES, '.github/workflows/files.yml': WORKFLOW },
      workflow: { file: 'files.yml' },
    })
    await sandbox.dispatch({})
    const [job] = await sandbox.waitForIdle(30_000)
    expect(job?.conclusion).toBe('success')
    expect(job?.exportedEnv).toEqual({ PLAIN: 'one', MULTI: 'line 1\nline 2' })
    // Each line goes first, as the runner prepends it; one added again moves there.
    expect(job?.addedPath).toEqual(['/opt/first-a', '/opt/second', '/opt/first-b'])
    expect(job?.outputs.seen).toBe('one|line 1+line 2+|unset|42')
    expect(job?.outputs.path?.startsWith('/opt/first-a:/opt/second:/opt/first-b:')).toBe(true)
    expect(job?.annotations).toEqual([{ level: 'error', message: NODE_OPTIONS_REFUSED }])
    expect(job?.summary).toBe('first summary\n')
    expect(sandbox.engine.problems).toEqual([])
  })
})
