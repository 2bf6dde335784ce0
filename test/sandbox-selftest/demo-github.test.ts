import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runGitHubDemo } from '../../scripts/demo-github.js'
import { LOOP_WORKFLOW, REPO_FILES, TEST_ACTION_DIR } from './fixtures.js'

let out: string | undefined
afterEach(() => {
  if (out) rmSync(out, { recursive: true, force: true })
  out = undefined
})

describe('demo:github plumbing (with the self-test action in place of dist/index.js)', () => {
  it('runs the chain, prints each summary as it goes, and writes the summaries and the final comment', async () => {
    out = mkdtempSync(join(tmpdir(), 'demo-github-test-'))
    const printed: string[] = []
    const workflow = LOOP_WORKFLOW.replace('          store:', "          final-comment: 'true'\n          store:")
    const result = await runGitHubDemo({
      actionDir: TEST_ACTION_DIR,
      files: { ...REPO_FILES, '.github/workflows/loop.yml': workflow },
      workflowFile: 'loop.yml',
      inputs: { step: '1', 'chain-length': '2' },
      out,
      print: (line) => printed.push(line),
    })

    expect(result.ok).toBe(true)
    expect(result.problems).toEqual([])
    expect(result.jobs.map((j) => j.conclusion)).toEqual(['success', 'success'])
    expect(result.summaryFiles.map((f) => readFileSync(f, 'utf8').split('\n')[0])).toEqual([
      '## step 1 of 2',
      '## step 2 of 2',
    ])
    expect(readFileSync(result.finalCommentFile ?? '', 'utf8')).toBe('final: 2 steps')
    const text = printed.join('\n')
    expect(text).toMatch(/━━ job 1 · run \d+ · workflow_dispatch · success/)
    expect(text.indexOf('## step 1 of 2')).toBeLessThan(text.indexOf('## step 2 of 2'))
    expect(text).toContain('warning src/step.ts:2: step 2\nsecond line')
  })
})
