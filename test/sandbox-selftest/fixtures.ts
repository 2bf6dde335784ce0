// The repository and workflow the self-tests run the test action in.
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach } from 'vitest'
import { type Sandbox, type SandboxOptions, startSandbox } from '../sandbox/sandbox.js'

/** The self-test action (action.yml, main.mjs, post.mjs). */
export const TEST_ACTION_DIR = join(dirname(fileURLToPath(import.meta.url)), 'test-action')

/** A workflow like the loop's: dispatch inputs, comment and fork triggers, one concurrency group per ref. */
export const LOOP_WORKFLOW = `name: loop
on:
  workflow_dispatch:
    inputs:
      step:
        required: true
        default: '1'
      chain-length:
        default: '3'
  issue_comment:
    types: [created]
  pull_request_review:
  pull_request_target:
concurrency:
  group: loop-\${{ github.ref }}
  cancel-in-progress: false
permissions:
  contents: write
  actions: write
  issues: write
  pull-requests: write
jobs:
  loop:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
      - uses: ./
        with:
          step: \${{ inputs.step || '1' }}
          chain length: \${{ inputs.chain-length || '1' }}
          delay-ms: \${{ vars.DELAY_MS }}
          store: \${{ vars.STORE }}
`

/** The repository's files. */
export const REPO_FILES = {
  'README.md': '# demo\n',
  'src/step.ts': 'export const step = 1\n',
  '.github/workflows/loop.yml': LOOP_WORKFLOW,
}

/**
 * startSandbox's options a self-test may add, and more workflow files (name → text) beside the one it
 * runs; `alsoRun` names those of them the sandbox runs too (startSandbox's `workflows`).
 */
export type StartOptions = Omit<SandboxOptions, 'actionDir' | 'repoFiles' | 'workflow' | 'workflows'> & {
  workflows?: Record<string, string>
  alsoRun?: readonly string[]
}

/**
 * One sandbox per test, stopped after it: `start(file, text)` runs the workflow `file` (with `text`, in
 * .github/workflows/) of REPO_FILES with the test action; `current` is the test's sandbox.
 */
export function sandboxPerTest(): {
  start(file: string, text: string, options?: StartOptions): Promise<Sandbox>
  readonly current: Sandbox
} {
  let current: Sandbox | undefined
  afterEach(async () => {
    await current?.stop()
    current = undefined
  })
  return {
    async start(file, text, { workflows = {}, alsoRun, ...options } = {}) {
      const files = Object.entries({ ...workflows, [file]: text }).map(([name, content]) => [
        `.github/workflows/${name}`,
        content,
      ])
      current = await startSandbox({
        actionDir: TEST_ACTION_DIR,
        repoFiles: { ...REPO_FILES, ...Object.fromEntries(files) },
        workflow: { file },
        ...(alsoRun ? { workflows: alsoRun } : {}),
        ...options,
      })
      return current
    },
    get current() {
      if (!current) throw new Error('sandboxPerTest: this test started no sandbox')
      return current
    },
  }
}
