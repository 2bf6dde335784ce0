/**
 * A jest suite that fails to run on a SyntaxError: code that does not parse is a syntax error, while
 * JSON.parse's runtime SyntaxError (a message naming JSON) is a failing test, wherever a capital J is.
 */
import { describe, expect, it } from 'vitest'
import { analyzeText, buildLibrary } from '../../../src/domain/analysis/index.js'

const library = buildLibrary()
const suite = (error: string) =>
  `FAIL ./settings.test.js\n  ● Test suite failed to run\n\n    ${error}\n\nTest Suites: 1 failed, 1 total\nTests:       0 total\n`

describe('a SyntaxError that fails a jest suite', () => {
  it.each([
    [
      'babel, in a Jenkins workspace',
      'SyntaxError: /var/lib/Jenkins/ws/src/x.js: Unexpected token (3:5)',
      'syntax-error',
    ],
    [
      'JSX not enabled',
      "SyntaxError: /app/src/App.js: Support for the experimental syntax 'JSX' isn't enabled (1:1)",
      'syntax-error',
    ],
    ['node, a missing paren', 'SyntaxError: missing ) after argument list', 'syntax-error'],
    ['a message with JS and JSO but not JSON', 'SyntaxError: Unexpected identifier JSO in JS (JSOJ)', 'syntax-error'],
    ['JSON.parse, node 20', 'SyntaxError: Unexpected token \'<\', "<html>" is not valid JSON', 'test-failure'],
    ['JSON.parse, end of input', 'SyntaxError: Unexpected end of JSON input', 'test-failure'],
    [
      'JSON.parse, position',
      'SyntaxError: Expected double-quoted property name in JSON at position 12',
      'test-failure',
    ],
    ['JSON after repeated J and JS', 'SyntaxError: JJSJSOJSON at position 1', 'test-failure'],
  ])('%s', (_name, error, pattern) => {
    expect(analyzeText(suite(error), library).pattern).toBe(pattern)
  })
})
