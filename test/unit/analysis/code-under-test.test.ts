import { describe, expect, it } from 'vitest'
import { withCodeUnderTest } from '../../../src/domain/analysis/locations.js'
import type { Location } from '../../../src/domain/state.js'

describe('withCodeUnderTest: a Go test file points at the file it tests too', () => {
  it.each<[string, Location[], Location[]]>([
    [
      'x_test.go is followed by x.go',
      [{ file: 'add_test.go', line: 6 }],
      [
        { file: 'add_test.go', line: 6 },
        { file: 'add.go', message: 'the code under test of add_test.go' },
      ],
    ],
    [
      'kept in its directory',
      [{ file: 'pkg/mathx/add_test.go', line: 6 }],
      [
        { file: 'pkg/mathx/add_test.go', line: 6 },
        { file: 'pkg/mathx/add.go', message: 'the code under test of pkg/mathx/add_test.go' },
      ],
    ],
    [
      'not added when the output already names x.go (a panic inside it)',
      [
        { file: '/w/index.go', line: 5 },
        { file: '/w/index_test.go', line: 6 },
      ],
      [
        { file: '/w/index.go', line: 5 },
        { file: '/w/index_test.go', line: 6 },
      ],
    ],
    [
      'added once for several failures in the same test file',
      [
        { file: 'a_test.go', line: 6 },
        { file: 'a_test.go', line: 9 },
      ],
      [
        { file: 'a_test.go', line: 6 },
        { file: 'a.go', message: 'the code under test of a_test.go' },
        { file: 'a_test.go', line: 9 },
      ],
    ],
    [
      'other files are left alone',
      [
        { file: 'main.go', line: 3 },
        { file: 'test_x.py', line: 1 },
      ],
      [
        { file: 'main.go', line: 3 },
        { file: 'test_x.py', line: 1 },
      ],
    ],
  ])('%s', (_name, input, want) => {
    expect(withCodeUnderTest(input)).toEqual(want)
  })
})
