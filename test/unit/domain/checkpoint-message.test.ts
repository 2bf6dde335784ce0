import { describe, expect, it } from 'vitest'
import { fixCommitMessage, iterationCommitMessage, MAX_SUBJECT_CHARS } from '../../../src/domain/checkpoint-message.js'

const trailers = { prefix: 'loop', loopId: 'fix-login', iteration: 3 }

describe('iterationCommitMessage', () => {
  it('names the iteration, its stage and strategy, the verdicts and the trailers', () => {
    expect(iterationCommitMessage(trailers, 'IMPLEMENT', 'context_expand', 'unit pass, lint fail')).toBe(
      'loop(fix-login): iteration 3 IMPLEMENT [context_expand]\n\nunit pass, lint fail\n\nLoop-Id: fix-login\nLoop-Iteration: 3',
    )
    expect(iterationCommitMessage(trailers, 'VERIFY', null, 'unit pass').split('\n')[0]).toBe(
      'loop(fix-login): iteration 3 VERIFY',
    )
  })
})

describe('fixCommitMessage', () => {
  const table: Array<{ name: string; check: string; command: string | string[]; subject: string }> = [
    {
      name: 'the check then the command',
      check: 'format',
      command: 'prettier -w .',
      subject: 'loop(fix-login): format: prettier -w .',
    },
    {
      name: 'an argument list joined',
      check: 'lint',
      command: ['eslint', '.', '--fix'],
      subject: 'loop(fix-login): lint: eslint . --fix',
    },
    {
      name: 'a multi-line command on one line',
      check: 'format',
      command: 'gofmt -w .\n  && goimports -w .',
      subject: 'loop(fix-login): format: gofmt -w . && goimports -w .',
    },
    {
      name: 'a long command cut with an ellipsis',
      check: 'format',
      command: `prettier --write ${'src/very/long/path/to/a/file.ts '.repeat(6)}`,
      subject: `loop(fix-login): format: prettier --write ${'src/very/long/path/to/a/file.ts '.repeat(6)}`
        .slice(0, MAX_SUBJECT_CHARS - 1)
        .trimEnd()
        .concat('…'),
    },
  ]

  it.each(table)('$name', ({ check, command, subject }) => {
    const message = fixCommitMessage(trailers, check, command)
    expect(message.split('\n')[0]).toBe(subject)
    expect(message.split('\n')[0]?.length).toBeLessThanOrEqual(MAX_SUBJECT_CHARS)
    expect(message).toMatch(/\nLoop-Id: fix-login\nLoop-Iteration: 3\nLoop-Fix: \S+$/)
  })

  it('keeps the whole command in the body', () => {
    const command = `prettier --write ${'a/b/c.ts '.repeat(20)}`.trim()
    expect(fixCommitMessage(trailers, 'format', command)).toContain(`    ${command}`)
  })
})
