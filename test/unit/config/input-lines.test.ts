// The action's inputs that hold one item per line: `verify` skips what a YAML block keeps (blank lines)
// and comment lines; `secrets` takes a bare name that another line gives a value as given.
import { describe, expect, it } from 'vitest'
import { parseSecretLines, parseVerifyLines } from '../../../src/config/input-lines.js'

describe('verify lines', () => {
  it('are the commands, trimmed, without blank and # lines', () => {
    expect(parseVerifyLines('  npm ci\n\n# the suite\nnpm test  \r\n\n')).toEqual(['npm ci', 'npm test'])
    expect(parseVerifyLines('\n# npm test\n')).toEqual([])
  })
})

describe('secrets lines', () => {
  it('take a bare name as given when another line gives its value (secret-names beside LOOP_SECRETS)', () => {
    expect(parseSecretLines('NPM_TOKEN\n\nNPM_TOKEN=abc\nDB=x', {})).toEqual({
      secrets: { NPM_TOKEN: 'abc', DB: 'x' },
      missing: [],
      problems: [],
    })
  })
})
