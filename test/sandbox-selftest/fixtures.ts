// The repository and workflow the self-tests run the test action in.
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

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
