import { describe, expect, it } from 'vitest'
import { displayText } from '../../../src/domain/display-text.js'

describe('displayText', () => {
  it.each([
    ['plain text is kept as it is', 'FAIL test/a.test.ts > adds\n\tat x', 'FAIL test/a.test.ts > adds\n\tat x'],
    ['colour escapes go', '\u001b[31m\u001b[1mFAIL\u001b[22m\u001b[39m a', 'FAIL a'],
    ['an OSC hyperlink keeps its text', '\u001b]8;;file:///a.ts\u0007a.ts\u001b]8;;\u0007', 'a.ts'],
    ['NUL bytes and bells go', 'a\u0000b\u0007c', 'abc'],
    ['Windows line ends become newlines', 'one\r\ntwo\r\n', 'one\ntwo\n'],
    ['a progress bar keeps its last frame', ' 10%\r 50%\r100% done\nnext', '100% done\nnext'],
    ['a backspace and form feed go', 'ab\u0008c\u000cd', 'abcd'],
  ])('%s', (_name, input, expected) => {
    expect(displayText(input)).toBe(expected)
  })
})
