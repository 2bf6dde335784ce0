// Every REST operation the action calls is exercised by an end-to-end scenario (issue 13, point 11), so
// the stand-in has validated its request and GitHub's answer against the description at least once.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { OPERATIONS_EXERCISED, operationsTheActionCalls, unexercisedOperations } from './rest-operations.js'

describe('REST operations of the action and the e2e scenarios', () => {
  it('finds the action’s calls in its source, its bundled libraries’ included', () => {
    const calls = operationsTheActionCalls()
    expect([...calls.keys()]).toEqual(
      expect.arrayContaining([
        'actions/create-workflow-dispatch',
        'issues/list-comments',
        'pulls/create',
        'actions/list-artifacts-for-repo',
        'actions/download-artifact',
      ]),
    )
  })

  it('exercises every operation the action calls in at least one e2e scenario', () => {
    expect(unexercisedOperations(operationsTheActionCalls())).toEqual([])
  })

  it('claims for the e2e files only operations the action calls', () => {
    const calls = operationsTheActionCalls()
    const strays = Object.entries(OPERATIONS_EXERCISED).flatMap(([file, operations]) =>
      operations.filter((operationId) => !calls.has(operationId)).map((operationId) => `${file}: ${operationId}`),
    )
    expect(strays).toEqual([])
  })

  it('fails for a call added to the source without a scenario, naming it and where it is called', () => {
    const root = mkdtempSync(join(tmpdir(), 'rest-operations-'))
    try {
      mkdirSync(join(root, 'src', 'adapters'), { recursive: true })
      writeFileSync(
        join(root, 'src', 'adapters', 'labels.ts'),
        "await octokit.rest.issues.addLabels({ owner, repo, issue_number: 1, labels: ['x'] })\n" +
          "await octokit.request('DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}', {})\n",
      )
      expect(unexercisedOperations(operationsTheActionCalls(root))).toEqual([
        'issues/add-labels (called in src/adapters/labels.ts)',
        'issues/remove-label (called in src/adapters/labels.ts)',
      ])
      writeFileSync(join(root, 'src', 'adapters', 'typo.ts'), 'octokit.rest.issues.addLabel({})\n')
      expect(() => operationsTheActionCalls(root)).toThrow(
        /src\/adapters\/typo\.ts: octokit\.rest\.issues\.addLabel is no operation of @octokit\/openapi/,
      )
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
