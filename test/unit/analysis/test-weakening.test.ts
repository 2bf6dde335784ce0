// The verifier-gaming guard's weakened-test rules, one row per language and weakening: which files are
// tests by default, and what counts as losing an assertion or gaining a skip in each language.
import { describe, expect, it } from 'vitest'
import { inspectProtectedChanges } from '../../../src/domain/analysis/guard.js'
import { DEFAULT_TEST_FILES } from '../../../src/domain/analysis/test-weakening.js'

const rules = { protectedGlobs: [], testGlobs: [...DEFAULT_TEST_FILES] }

const PY = 'from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n    assert add(2, 2) == 4\n'
const PY_UNITTEST = 'class T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n'
const GO = 'func TestAdd(t *testing.T) {\n\tif got := Add(1, 2); got != 3 {\n\t\tt.Errorf("got %d", got)\n\t}\n}\n'
const GO_FATAL = 'func TestRead(t *testing.T) {\n\tif _, err := Read(); err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n'
const SH = '#!/bin/sh\nset -e\n. ./calc.sh\n[ "$(add 1 2)" = 3 ]\ntest -f out.txt\n'
const BATS = '@test "adds" {\n  run add 1 2\n  [[ "$output" == 3 ]]\n}\n'

describe('weakened tests, per language', () => {
  const cases: { name: string; path: string; before: string; after: string; reasons: RegExp[] }[] = [
    // Python (pytest and unittest)
    {
      name: 'Python: an assert removed',
      path: 'tests/test_calc.py',
      before: PY,
      after: PY.replace('    assert add(2, 2) == 4\n', ''),
      reasons: [/lost assertions \(2 -> 1\)/],
    },
    {
      name: "Python: an assert turned into 'assert True'",
      path: 'tests/test_calc.py',
      before: PY,
      after: PY.replace('assert add(1, 2) == 3', 'assert True'),
      reasons: [/lost assertions \(2 -> 1\)/],
    },
    {
      name: "Python: an assert turned into 'assert True, msg' in a *_test.py outside tests/",
      path: 'calc_test.py',
      before: PY,
      after: PY.replace('assert add(1, 2) == 3', 'assert True, "fixed later"').replace('add(2, 2) == 4', '(True)'),
      reasons: [/lost assertions \(2 -> 0\)/],
    },
    {
      name: 'Python: a unittest assertEqual removed',
      path: 'test_calc.py',
      before: PY_UNITTEST,
      after: PY_UNITTEST.replace('self.assertEqual(add(1, 2), 3)', 'pass'),
      reasons: [/lost assertions \(1 -> 0\)/],
    },
    {
      name: 'Python: pytest.skip added',
      path: 'test_calc.py',
      before: PY,
      after: PY.replace('def test_add():\n', 'def test_add():\n    pytest.skip("later")\n'),
      reasons: [/gained skips \(0 -> 1\)/],
    },
    {
      name: 'Python: @pytest.mark.skip added',
      path: 'pkg/test_calc.py',
      before: PY,
      after: PY.replace('def test_add', '@pytest.mark.skip(reason="later")\ndef test_add'),
      reasons: [/gained skips \(0 -> 1\)/],
    },
    {
      name: 'Python: an assert added is no weakening',
      path: 'tests/test_calc.py',
      before: PY,
      after: `${PY}    assert add(0, 0) == 0\n`,
      reasons: [],
    },
    // Go
    {
      name: 'Go: t.Errorf removed',
      path: 'calc_test.go',
      before: GO,
      after: GO.replace('\t\tt.Errorf("got %d", got)\n', ''),
      reasons: [/lost assertions \(1 -> 0\)/],
    },
    {
      name: 'Go: t.Error removed',
      path: 'calc_test.go',
      before: GO.replace('t.Errorf("got %d", got)', 't.Error("wrong sum")'),
      after: GO.replace('\t\tt.Errorf("got %d", got)\n', ''),
      reasons: [/lost assertions \(1 -> 0\)/],
    },
    {
      name: 'Go: t.Fatal removed',
      path: 'pkg/io/read_test.go',
      before: GO_FATAL,
      after: GO_FATAL.replace('t.Fatal(err)', '_ = err'),
      reasons: [/lost assertions \(1 -> 0\)/],
    },
    {
      name: 'Go: t.Fatalf removed',
      path: 'pkg/io/read_test.go',
      before: GO_FATAL.replace('t.Fatal(err)', 't.Fatalf("read: %v", err)'),
      after: GO_FATAL.replace('t.Fatal(err)', '_ = err'),
      reasons: [/lost assertions \(1 -> 0\)/],
    },
    {
      name: 'Go: t.Skip added',
      path: 'calc_test.go',
      before: GO,
      after: GO.replace('{\n\tif', '{\n\tt.Skip("later")\n\tif'),
      reasons: [/gained skips \(0 -> 1\)/],
    },
    {
      name: 'Go: err.Error() is no assertion',
      path: 'pkg/io/read_test.go',
      before: GO_FATAL,
      after: GO_FATAL.replace('t.Fatal(err)', 'msg := err.Error()\n\t\tt.Fatal(msg)'),
      reasons: [],
    },
    // Shell (plain scripts under test/ and bats)
    {
      name: 'shell: a [ ] assertion removed',
      path: 'test/calc.sh',
      before: SH,
      after: SH.replace('[ "$(add 1 2)" = 3 ]\n', ''),
      reasons: [/lost assertions \(2 -> 1\)/],
    },
    {
      name: 'shell: a test assertion removed',
      path: 'tests/calc.sh',
      before: SH,
      after: SH.replace('test -f out.txt\n', 'echo test done\n'),
      reasons: [/lost assertions \(2 -> 1\)/],
    },
    {
      name: 'shell: a [[ ]] assertion removed from a bats file',
      path: 'calc.bats',
      before: BATS,
      after: BATS.replace('  [[ "$output" == 3 ]]\n', ''),
      reasons: [/lost assertions \(1 -> 0\)/],
    },
    {
      name: 'shell: exit 0 before the assertions',
      path: 'test/calc.sh',
      before: SH,
      after: SH.replace('. ./calc.sh\n', '. ./calc.sh\nexit 0\n'),
      reasons: [/gained an exit 0 before its assertions \(0 -> 1\)/],
    },
    {
      name: 'shell: exit 0 early in a bats test',
      path: 'calc.bats',
      before: BATS,
      after: BATS.replace('  run add 1 2\n', '  run add 1 2 || exit 0\n  exit 0\n'),
      reasons: [/gained an exit 0 before its assertions \(0 -> 2\)/],
    },
    {
      name: 'shell: bats skip added',
      path: 'calc.bats',
      before: BATS,
      after: BATS.replace('  run add', '  skip "later"\n  run add'),
      reasons: [/gained skips \(0 -> 1\)/],
    },
    {
      name: 'shell: exit 0 after the last assertion is no weakening',
      path: 'test/calc.sh',
      before: SH,
      after: `${SH}exit 0\n`,
      reasons: [],
    },
    // JavaScript, as before
    {
      name: 'JavaScript: an expect removed',
      path: 'src/calc.test.ts',
      before: 'expect(add(1, 2)).toBe(3)\nexpect(add(2, 2)).toBe(4)\n',
      after: 'expect(add(1, 2)).toBe(3)\n',
      reasons: [/lost assertions \(2 -> 1\)/],
    },
    {
      name: 'JavaScript: it.skip added',
      path: 'src/calc.test.ts',
      before: "it('adds', () => {})",
      after: "it.skip('adds', () => {})",
      reasons: [/gained skips \(0 -> 1\)/],
    },
    // Not test files
    {
      name: 'Python source outside the tests',
      path: 'src/calc.py',
      before: PY,
      after: 'x = 1\n',
      reasons: [],
    },
    { name: 'a build script outside the tests', path: 'scripts/build.sh', before: SH, after: 'exit 0\n', reasons: [] },
  ]
  for (const c of cases) {
    it(c.name, () => {
      const findings = inspectProtectedChanges([{ path: c.path, before: c.before, after: c.after }], rules)
      expect(findings.map((f) => f.reason)).toHaveLength(c.reasons.length)
      for (const [i, reason] of c.reasons.entries()) {
        expect(findings[i]).toMatchObject({ path: c.path, reason: expect.stringMatching(reason) })
      }
    })
  }

  it('recognises each language test file by default', () => {
    for (const glob of ['**/test_*.py', '**/*_test.py', '**/*_test.go', '**/*.bats', '**/test/**/*.sh']) {
      expect(DEFAULT_TEST_FILES).toContain(glob)
    }
  })
})
