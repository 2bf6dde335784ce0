import { describe, expect, it } from 'vitest'
import { ActionInputError, type EventContext, parseActionInputs } from '../../../src/config/action-inputs.js'

const noEvent: EventContext = { eventName: 'workflow_dispatch', payload: {}, runId: 777 }

function problemsOf(values: Record<string, string>): string[] {
  const all: Record<string, string> = { 'github-token': 'tok-1234', ...values }
  try {
    parseActionInputs((name) => all[name] ?? '', noEvent)
  } catch (error) {
    if (!(error instanceof ActionInputError)) throw error
    return [...error.problems]
  }
  return []
}

describe("the state store in fan-out's jobs", () => {
  const table: Array<{ command: string; store: string; refused: boolean }> = [
    ...['plan', 'verify', 'decide'].flatMap((command) => [
      { command, store: 'git', refused: false },
      { command, store: 'cache', refused: true },
      { command, store: 'auto', refused: true },
      { command, store: 'artifact', refused: true },
    ]),
    { command: 'run', store: 'cache', refused: false },
    { command: 'run', store: 'artifact', refused: false },
  ]
  it.each(table)("'store: $store' with 'command: $command' refused: $refused", ({ command, store, refused }) => {
    const extra: Record<string, string> = command === 'verify' ? { leg: 'unit' } : {}
    const problems = problemsOf({ command, store, ...extra })
    expect(problems).toEqual(
      refused
        ? [
            `Input 'store' must be 'git' with 'command: ${command}' (fan-out); got 'store: ${store}'. Fan-out's plan and verify jobs run the project's code beside the runner's runtime token, which can write the Actions cache and upload artifacts, so a state kept there could be forged before decide reads it; the git store's branch takes only decide's push. Use the default store, 'git'.`,
          ]
        : [],
    )
  })
})
