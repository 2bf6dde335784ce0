/**
 * The caller workflow the sandbox runs the action with: the action as a step (as
 * examples/workflows/loop-step.yml shows users), started by a dispatch, a label, a comment, a review or
 * a fork's pull request, one concurrency group per loop. One template for the demo, the end-to-end scenarios
 * and the benchmarks, so they all run the same workflow.
 */
export function loopWorkflow(
  options: { name?: string; with?: Record<string, string>; schedule?: string; issueTypes?: readonly string[] } = {},
): string {
  const extra = Object.entries(options.with ?? {})
    .map(([name, value]) => `          ${name}: ${JSON.stringify(value)}\n`)
    .join('')
  return `name: ${options.name ?? 'loop'}
on:
  workflow_dispatch:
    inputs:
      loop-id:
        type: string
        required: true
      iteration:
        type: string
        default: ''
  issues:
    types: [${(options.issueTypes ?? ['labeled']).join(', ')}]
  issue_comment:
    types: [created]
  pull_request_review:
    types: [submitted]
  pull_request:
    types: [labeled, closed]
  pull_request_target:
    types: [opened]
${options.schedule ? `  schedule:\n    - cron: '${options.schedule}'\n` : ''}permissions: {}
jobs:
  loop:
    runs-on: ubuntu-latest
    timeout-minutes: 10
    permissions:
      contents: write
      actions: write
      pull-requests: write
      issues: write
    concurrency:
      group: loop-controller-\${{ inputs.loop-id && format('loop/{0}', inputs.loop-id) || (startsWith(github.event.pull_request.head.ref, 'loop/') && github.event.pull_request.head.ref) || (github.event.pull_request && format('loop/pr-{0}', github.event.pull_request.number)) || (github.event.issue.pull_request && format('pull-request-comment-{0}', github.run_id)) || (github.event.issue && format('loop/issue-{0}', github.event.issue.number)) || github.run_id }}
      cancel-in-progress: false
      queue: max
    steps:
      - uses: actions/checkout@v7
        with:
          fetch-depth: 0
      - uses: ./
        with:
          loop-id: \${{ inputs.loop-id }}
          iteration: \${{ inputs.iteration }}
          config: .github/loop.yml
${extra}`
}
